// `brickprof run [options] -- CMD ARGS...`: runs CMD with the agent preloaded
// and injected (LD_PRELOAD, CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH),
// passes the options on as BRICKPROF_* variables, lists the files the agents
// wrote when CMD ends, and exits with CMD's code.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "analysis/export/sink.h"
#include "tools/agent_path.h"
#include "tools/command.h"
#include "tools/run_manifest.h"

namespace brickprof::cli {
namespace {

struct RunOptions {
  std::string output, formats, log, sync, gpu, ptx, capture, cuda_graph_trace, cmdline;
  unsigned buffer_mb = 0;
  unsigned capture_every = 0, capture_max = 0;  // 0: not given
  std::vector<std::string> command;             // positionals given before any "--"
};

bool has_item(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    size_t sep = list.find_first_of(": ");
    if (list.substr(0, sep) == item) return true;
    list = sep == std::string_view::npos ? std::string_view{} : list.substr(sep + 1);
  }
  return false;
}

void set_env(const char* name, const std::string& value) {
  if (!value.empty()) ::setenv(name, value.c_str(), 1);
}

void set_agent_env(const std::string& agent, const RunOptions& o) {
  // Prepend, keeping whatever the user preloads; the loader accepts ':'.
  const char* preload = std::getenv("LD_PRELOAD");
  if (!preload || !*preload)
    ::setenv("LD_PRELOAD", agent.c_str(), 1);
  else if (!has_item(preload, agent))
    ::setenv("LD_PRELOAD", (agent + ":" + preload).c_str(), 1);
  ::setenv("CUDA_INJECTION64_PATH", agent.c_str(), 1);
  ::setenv("NVTX_INJECTION64_PATH", agent.c_str(), 1);
  set_env("BRICKPROF_OUTPUT", o.output);
  set_env("BRICKPROF_FORMATS", o.formats);
  set_env("BRICKPROF_LOG", o.log);
  set_env("BRICKPROF_SYNC", o.sync);
  set_env("BRICKPROF_GPU", o.gpu);
  set_env("BRICKPROF_PTX", o.ptx);
  set_env("BRICKPROF_CAPTURE", o.capture);
  set_env("BRICKPROF_CUDA_GRAPH_TRACE", o.cuda_graph_trace);
  set_env("BRICKPROF_CMDLINE", o.cmdline);
  if (o.buffer_mb) set_env("BRICKPROF_BUFFER_MB", std::to_string(o.buffer_mb));
  if (o.capture_every) set_env("BRICKPROF_CAPTURE_EVERY", std::to_string(o.capture_every));
  if (o.capture_max) set_env("BRICKPROF_CAPTURE_MAX", std::to_string(o.capture_max));
}

// Like system(): the child gets the terminal's signals; we wait it out and
// report how it ended.
int spawn_and_wait(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();

  struct sigaction ignore = {}, old_int = {}, old_quit = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    // The process the user started (and what it execs, which keeps the pid)
    // writes a trace even if it records nothing; the programs it runs, only
    // what they recorded.
    ::setenv("BRICKPROF_RUN_PID", std::to_string(::getpid()).c_str(), 1);
    ::execvp(argv[0], argv.data());
    int err = errno;
    // Shell conventions: 127 not found, 126 found but not runnable.
    std::string line = "brickprof: " + command[0] + ": " + std::strerror(err) + "\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
    ::_exit(err == ENOENT ? 127 : 126);
  }
  int status = 0;
  int result = 0;
  if (pid < 0) {
    result = fail(std::string("cannot start ") + command[0] + ": " + std::strerror(errno));
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status))
      result = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result = 128 + WTERMSIG(status);
    else
      result = 1;
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  return result;
}

// "json,tree,...": every output format, from the exporters' registry.
std::string format_list() {
  std::string list;
  for (std::string_view name : exporter_names())
    list += (list.empty() ? "" : ",") + std::string(name);
  return list;
}

int run(const RunOptions& o, const std::vector<std::string>& trailing) {
  std::vector<std::string> command = o.command;
  command.insert(command.end(), trailing.begin(), trailing.end());
  if (command.empty())
    return fail("run: no command given (usage: brickprof run [options] -- CMD ARGS...)");
  if (!o.formats.empty()) {
    std::vector<std::string> names = parse_formats(o.formats);
    if (names.empty()) return fail("run: --formats: empty list");
    for (const std::string& f : names)
      if (!make_exporter(f))
        return fail("run: --formats: unknown format '" + f + "' (" + format_list() + ")");
  }
  // The agent would warn and record everything; say it here instead.
  if (!o.capture.empty() && o.capture != "all" && o.capture != "cuda-profiler-api" &&
      o.capture != "cudaProfilerApi" &&
      (o.capture.rfind("scope:", 0) != 0 || o.capture.size() == 6))
    return fail("run: --capture: '" + o.capture + "' is not all, cuda-profiler-api or scope:NAME");
  if ((o.capture_every || o.capture_max) && (o.capture.empty() || o.capture == "all"))
    return fail("run: --capture-every/--capture-max sample capture windows: give --capture too");
  std::string error;
  std::string agent = find_agent(&error);
  if (agent.empty()) return fail("run: " + error);
  set_agent_env(agent, o);
  RunManifest manifest;
  if (manifest.path().empty())
    ::unsetenv("BRICKPROF_RUN_MANIFEST");  // not an outer run's: its listing is not ours
  else
    ::setenv("BRICKPROF_RUN_MANIFEST", manifest.path().c_str(), 1);
  const int status = spawn_and_wait(command);
  const char* log = std::getenv("BRICKPROF_LOG");
  if (!log || std::string_view(log) != "off")
    for (const std::string& file : manifest.written_files())
      std::cerr << "brickprof: wrote " << file << '\n';
  return status;
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = parent.add_subcommand(
      "run", "Run CMD with the profiler agent loaded: brickprof run [OPTIONS] -- CMD [ARGS...]");
  sub->add_option("--output", o->output,
                  "Output path prefix (%p pid, %r rank, %h host, %n program) [BRICKPROF_OUTPUT]");
  sub->add_option("--formats", o->formats,
                  "Comma list of " + format_list() + " [BRICKPROF_FORMATS]");
  sub->add_option("--log", o->log, "Agent log level [BRICKPROF_LOG]")
      ->check(CLI::IsMember({"off", "error", "warn", "info", "debug"}));
  sub->add_option("--buffer-mb", o->buffer_mb, "Cap on event memory, MiB [BRICKPROF_BUFFER_MB]")
      ->check(CLI::PositiveNumber);
  sub->add_option("--sync", o->sync, "GPU timing mode [BRICKPROF_SYNC]")
      ->check(CLI::IsMember({"deferred", "per-layer", "immediate", "none"}));
  sub->add_option("--gpu", o->gpu, "GPU profiling [BRICKPROF_GPU]")
      ->check(CLI::IsMember({"auto", "off"}));
  sub->add_option("--ptx", o->ptx, "Store PTX hashes only, or source too [BRICKPROF_PTX]")
      ->check(CLI::IsMember({"hash", "source"}));
  sub->add_option("--capture", o->capture,
                  "What to record: all, cuda-profiler-api (between cudaProfilerStart and "
                  "cudaProfilerStop), or scope:NAME (inside every scope, brick or NVTX range "
                  "named NAME) [BRICKPROF_CAPTURE]");
  sub->add_option("--capture-every", o->capture_every,
                  "Record one capture window in K: the 1st, K+1th, ... [BRICKPROF_CAPTURE_EVERY]")
      ->check(CLI::Range(1u, 1000000000u));
  sub->add_option("--capture-max", o->capture_max,
                  "Record at most M capture windows [BRICKPROF_CAPTURE_MAX]")
      ->check(CLI::Range(1u, 1000000000u));
  sub->add_option("--cuda-graph-trace", o->cuda_graph_trace,
                  "Kernels replayed from CUDA graphs: node (each kernel, attributed to the scope "
                  "that captured it) or graph (each replay as one interval: a fifth of CUPTI's "
                  "cost per replay, no kernels inside) [BRICKPROF_CUDA_GRAPH_TRACE]")
      ->check(CLI::IsMember({"node", "graph"}));
  sub->add_option("--cmdline", o->cmdline,
                  "How much of each command line a trace keeps: full, program (argv[0] only) or "
                  "none [BRICKPROF_CMDLINE]")
      ->check(CLI::IsMember({"full", "program", "none"}));
  sub->add_option("command", o->command, "The command to profile (put it after --)");
  sub->footer(
      "The agent is $BRICKPROF_AGENT, else ../agent/libbrickprof.so or ../lib/libbrickprof.so\n"
      "next to this binary. When CMD ends, each file written is listed on stderr\n"
      "('brickprof: wrote PATH'; none with --log off). Exit code: CMD's, or 128+N if a\n"
      "signal N killed it; 2 on usage errors.");
  return {sub, [o](const std::vector<std::string>& trailing) { return run(*o, trailing); }};
}

}  // namespace brickprof::cli
