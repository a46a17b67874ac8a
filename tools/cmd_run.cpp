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
#include <iterator>
#include <memory>

#include "analysis/export/sink.h"
#include "analysis/model/printable.h"
#include "analysis/model/recorded.h"
#include "analysis/model/settings.h"
#include "tools/agent_path.h"
#include "tools/command.h"
#include "tools/run_manifest.h"

namespace brickprof::cli {
namespace {

struct RunOptions {
  // A value per row of settings::kSettings ("" where the flag was not given).
  std::string values[std::size(settings::kSettings)];
  std::vector<std::string> command;  // positionals given before any "--"
};

bool has_item(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    size_t sep = list.find_first_of(": ");
    if (list.substr(0, sep) == item) return true;
    list = sep == std::string_view::npos ? std::string_view{} : list.substr(sep + 1);
  }
  return false;
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
  for (size_t i = 0; i < std::size(settings::kSettings); ++i)
    if (!o.values[i].empty())
      ::setenv(std::string(settings::kSettings[i].variable).c_str(), o.values[i].c_str(), 1);
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
  // The agent would warn and use the default; say it here instead.
  for (size_t i = 0; i < std::size(settings::kSettings); ++i) {
    const settings::Setting& s = settings::kSettings[i];
    if (o.values[i].empty()) continue;
    if (std::string problem = settings::problem(s, o.values[i]); !problem.empty())
      return fail("run: " + std::string(s.flag) + ": " + problem);
  }
  // A flag's value by its row: settings::setting() checks the name at compile time.
  auto given = [&](const settings::Setting& row) -> const std::string& {
    return o.values[&row - settings::kSettings];
  };
  const std::string& capture = given(settings::setting("BRICKPROF_CAPTURE"));
  if ((!given(settings::setting("BRICKPROF_CAPTURE_EVERY")).empty() ||
       !given(settings::setting("BRICKPROF_CAPTURE_MAX")).empty()) &&
      (capture.empty() || capture == "all"))
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
  const char* log = std::getenv(settings::setting("BRICKPROF_LOG").variable.data());
  if (!log || std::string_view(log) != "off") {
    for (const std::string& file : manifest.written_files())
      std::cerr << "brickprof: wrote " << printable(file) << '\n';
    if (manifest.nothing_recorded()) {
      const char* capture = std::getenv(settings::setting("BRICKPROF_CAPTURE").variable.data());
      std::cerr << "brickprof: " << printable(nothing_recorded_line(capture ? capture : "all"))
                << '\n';
    }
  }
  return status;
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = parent.add_subcommand(
      "run", "Run CMD with the profiler agent loaded: brickprof run [OPTIONS] -- CMD [ARGS...]");
  for (size_t i = 0; i < std::size(settings::kSettings); ++i) {
    const settings::Setting& s = settings::kSettings[i];
    if (s.flag.empty()) continue;
    std::string help = std::string(s.help);
    if (s.kind == settings::Kind::kFormats) help += ": " + format_list();
    if (s.kind == settings::Kind::kChoice) help += " {" + std::string(s.values) + "}";
    sub->add_option(std::string(s.flag), o->values[i], help + " [" + std::string(s.variable) + "]");
  }
  sub->add_option("command", o->command, "The command to profile (put it after --)");
  sub->footer(
      "The agent is $BRICKPROF_AGENT, else ../agent/libbrickprof.so or ../lib/libbrickprof.so\n"
      "next to this binary. When CMD ends, each file written is listed on stderr\n"
      "('brickprof: wrote PATH'; none with --log off). Exit code: CMD's, or 128+N if a\n"
      "signal N killed it; 2 on usage errors.");
  return {sub, [o](const std::vector<std::string>& trailing) { return run(*o, trailing); }};
}

}  // namespace brickprof::cli
