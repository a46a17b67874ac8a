// `brickprof run [options] [--] CMD ARGS...`: runs CMD with the agent preloaded
// and injected (LD_PRELOAD, CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH),
// passes the options on as BRICKPROF_* variables, lists the files the agents
// wrote when CMD ends, and exits with CMD's code. Before CMD starts it checks
// what it can (the options, the output folder, the agent file); after, a run
// that wrote no trace says why and does not exit 0.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>

#include "tools/agent_path.h"
#include "tools/command.h"
#include "tools/program_check.h"
#include "tools/python_package.h"
#include "tools/run_manifest.h"
#include "trace/model/printable.h"
#include "trace/model/recorded.h"
#include "trace/model/settings.h"
#include "trace/output/formats.h"
#include "trace/output/output_name.h"

namespace brickprof::cli {
namespace {

// GNU env, nice, nohup, timeout and stdbuf exit 125 when they themselves
// fail; run does when CMD exited 0 but no trace was written.
constexpr int kExitNoTrace = 125;

struct RunOptions {
  // A value per row of settings::kSettings ("" where the flag was not given).
  std::string values[std::size(settings::kSettings)];
  std::vector<std::string> command;  // positionals given before any "--"
  bool checksums = false;            // --checksums: BRICKPROF_CHECKSUMS=1
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

// How CMD ended.
struct Ended {
  int exit_code = 0;  // CMD's, 128+N for signal N, 126/127 when it could not start
  int signal = 0;     // the signal that killed it, if one did
};

// Like system(): the child gets the terminal's signals; we wait it out and
// report how it ended.
Ended spawn_and_wait(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Made before the fork: the command as a name is data like any other.
  const std::string shown_command = printable(command[0]);
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
    std::string line = "brickprof: " + shown_command + ": " + std::strerror(err) + "\n";
    (void)!::write(STDERR_FILENO, line.data(), line.size());
    ::_exit(err == ENOENT ? 127 : 126);
  }
  Ended ended;
  int status = 0;
  if (pid < 0) {
    ended.exit_code = fail(std::string("cannot start ") + command[0] + ": " + std::strerror(errno));
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
      ended.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      ended.signal = WTERMSIG(status);
      ended.exit_code = 128 + ended.signal;
    } else {
      ended.exit_code = 1;
    }
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  return ended;
}

// "json,tree,...": every output format, from the table of formats.
std::string format_list() {
  std::string list;
  for (const Format& f : formats()) list += (list.empty() ? "" : ", ") + std::string(f.name);
  return list;
}

// --formats always writes the trace itself: report, diff, merge and view
// read nothing else.
std::string with_the_trace(const std::string& formats) {
  for (const std::string& f : parse_formats(formats))
    if (f == "json" || f == "json.gz") return formats;
  return "json," + formats;
}

// `parquet` is not the agent's: run takes it out of the list (the trace,
// json, stays) and exports the traces after CMD ends. True if it was there.
constexpr std::string_view kParquet = "parquet";
bool take_parquet(std::string& formats) {
  bool found = false;
  std::string rest;
  for (const std::string& f : parse_formats(formats)) {
    if (f == kParquet)
      found = true;
    else
      rest += (rest.empty() ? "" : ",") + f;
  }
  if (found) formats = with_the_trace(rest);
  return found;
}

// A rank of a job, as the agent tells one (its launcher's variables).
bool launched_as_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(v); value && *value) return true;
  return false;
}

// Each trace CMD wrote as Parquet through the Python package: a rank's into
// the folder's `parquet/` dataset, which its job's other ranks share (the
// shards are partitioned by job and rank), any other into PREFIX.parquet/.
// A failure is said and leaves CMD's exit code alone.
void export_parquet(const std::vector<std::string>& files, bool quiet) {
  for (const std::string& file : files) {
    if (format_extension_of(file) != ".json") continue;
    const std::filesystem::path trace(file);
    const std::string dataset = launched_as_rank()
                                    ? (trace.parent_path() / "parquet").string()
                                    : file.substr(0, file.size() - 5) + ".parquet";
    std::vector<std::string> args = {"--parquet", dataset, file};
    if (quiet) args.insert(args.begin(), "--quiet");
    if (run_package("export", args) != 0)
      std::cerr << "brickprof: " << printable(file) << " not written as Parquet (above: why)\n";
  }
}

// The output folder, checked before CMD starts: it must be a folder we can
// write in. `given` ending in '/' asks for the folder, which is made if
// missing. Only the part before the first %-item is checked (%h, %p... are
// known to the agent alone). Returns "" or the problem.
std::string prepare_output_folder(const std::string& given, const std::string& prefix) {
  std::string_view folder = output_folder(prefix);
  if (size_t item = folder.find('%'); item != std::string_view::npos) {
    folder = folder.substr(0, item);
    folder = folder.substr(0, folder.rfind('/') == std::string_view::npos ? 0 : folder.rfind('/'));
  }
  const std::string dir = folder.empty() ? "." : std::string(folder);
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    if (given.empty() || given.back() != '/')
      return "no folder " + dir + " (end --output with / to have it made: " + dir + "/)";
    std::filesystem::create_directories(dir, ec);
    if (ec) return "cannot make the folder " + dir + ": " + ec.message();
  }
  if (!std::filesystem::is_directory(dir, ec)) return dir + " is not a folder";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "cannot write in " + dir + ": " + std::strerror(errno);
  return "";
}

// One line on why CMD left no trace, from what is known.
std::string no_trace_reason(const std::string& before, const Ended& ended, const std::string& agent) {
  if (!before.empty()) return before;
  if (ended.signal != 0)
    return "it was killed by signal " + std::to_string(ended.signal) + " (" +
           strsignal(ended.signal) + ") before the agent could write";
  return "the agent did not load into it (the loader says why above, e.g. a program it ran "
         "was static or set-user-ID; agent " + agent + "), or could not write its files (its "
         "message is above)";
}

int run(RunOptions o, const std::vector<std::string>& trailing) {
  std::vector<std::string> command = o.command;
  command.insert(command.end(), trailing.begin(), trailing.end());
  // A flag's value by its row: settings::setting() checks the name at compile time.
  auto given = [&](const settings::Setting& row) -> std::string& {
    return o.values[&row - settings::kSettings];
  };
  if (command.empty()) {
    // `run --gpu-metrics ./app`: the flag took the program as its value.
    for (size_t i = 0; i < std::size(settings::kSettings); ++i) {
      const settings::Setting& s = settings::kSettings[i];
      if (s.variable != "BRICKPROF_OUTPUT" && o.values[i].find('/') != std::string::npos)
        return fail("run: no command given: " + std::string(s.flag) + " took '" + o.values[i] +
                    "' as its value (write " + std::string(s.flag) + " VALUE -- CMD ARGS...)");
    }
    return fail("run: no command given (usage: brickprof run [options] [--] CMD ARGS...)");
  }
  std::string& formats = given(settings::setting("BRICKPROF_FORMATS"));
  const char* formats_env = std::getenv("BRICKPROF_FORMATS");
  std::string asked_formats = formats.empty() && formats_env ? formats_env : formats;
  const bool parquet = take_parquet(asked_formats);
  if (parquet) {
    formats = asked_formats;
    if (std::string problem = package_problem("--formats parquet"); !problem.empty())
      return fail("run: " + problem);
  }
  // The agent would warn and use the default; say it here instead.
  for (size_t i = 0; i < std::size(settings::kSettings); ++i) {
    const settings::Setting& s = settings::kSettings[i];
    if (o.values[i].empty()) continue;
    if (std::string problem = settings::problem(s, o.values[i]); !problem.empty())
      return fail("run: " + std::string(s.flag) + ": " + problem);
  }
  const std::string& capture = given(settings::setting("BRICKPROF_CAPTURE"));
  if ((!given(settings::setting("BRICKPROF_CAPTURE_EVERY")).empty() ||
       !given(settings::setting("BRICKPROF_CAPTURE_MAX")).empty()) &&
      (capture.empty() || capture == "all"))
    return fail("run: --capture-every/--capture-max sample capture windows: give --capture too");
  if (!given(settings::setting("BRICKPROF_GPU_METRICS_EVERY")).empty()) {
    const char* env = std::getenv("BRICKPROF_GPU_METRICS");
    const std::string metrics = !given(settings::setting("BRICKPROF_GPU_METRICS")).empty()
                                    ? given(settings::setting("BRICKPROF_GPU_METRICS"))
                                    : env ? env : "";
    if (metrics.empty() || metrics == "off")
      return fail("run: --gpu-metrics-every samples the kernels --gpu-metrics profiles: give "
                  "--gpu-metrics too");
  }
  if (o.checksums) given(settings::setting("BRICKPROF_CHECKSUMS")) = "1";
  if (!formats.empty()) formats = with_the_trace(formats);
  // Where the files go, as the agent will read it; its folder checked now.
  std::string& output = given(settings::setting("BRICKPROF_OUTPUT"));
  const char* output_env = std::getenv("BRICKPROF_OUTPUT");
  const std::string asked = !output.empty()                   ? output
                            : output_env && *output_env ? output_env
                                                        : std::string(settings::setting("BRICKPROF_OUTPUT").fallback);
  if (!output.empty()) output = output_prefix_pattern(output);
  if (std::string problem = prepare_output_folder(asked, output_prefix_pattern(asked));
      !problem.empty())
    return fail("run: --output " + asked + ": " + problem);
  std::string error;
  std::string agent = find_agent(&error);
  if (agent.empty()) return fail("run: " + error);
  if (std::string problem = agent_file_problem(agent); !problem.empty())
    return fail("run: agent " + problem);
  const std::string cannot_load = preload_problem(command[0]);
  set_agent_env(agent, o);
  RunManifest manifest;
  if (manifest.path().empty())
    ::unsetenv("BRICKPROF_RUN_MANIFEST");  // not an outer run's: its listing is not ours
  else
    ::setenv("BRICKPROF_RUN_MANIFEST", manifest.path().c_str(), 1);
  const Ended ended = spawn_and_wait(command);
  const std::vector<std::string> files = manifest.written_files();
  const char* log = std::getenv(settings::setting("BRICKPROF_LOG").variable.data());
  if (!log || std::string_view(log) != "off") {
    for (const std::string& file : files) std::cerr << "brickprof: wrote " << printable(file) << '\n';
    if (manifest.nothing_recorded()) {
      const char* capture = std::getenv(settings::setting("BRICKPROF_CAPTURE").variable.data());
      std::cerr << "brickprof: " << printable(nothing_recorded_line(capture ? capture : "all"))
                << '\n';
    }
  }
  if (parquet) export_parquet(files, log && std::string_view(log) == "off");
  // 126/127: CMD never ran, and exec said why.
  if (files.empty() && !manifest.path().empty() && ended.exit_code != 126 &&
      ended.exit_code != 127) {
    fail("run: no trace was written for " + printable(command[0]) + ": " +
         no_trace_reason(cannot_load, ended, agent));
    return ended.exit_code != 0 ? ended.exit_code : kExitNoTrace;
  }
  return ended.exit_code;
}

// run --help's group of a setting's flag.
const char* group_of(std::string_view variable) {
  if (variable == "BRICKPROF_OUTPUT" || variable == "BRICKPROF_FORMATS" ||
      variable == "BRICKPROF_LOG")
    return "Output";
  if (variable.starts_with("BRICKPROF_CAPTURE") || variable == "BRICKPROF_CPU_COUNTERS")
    return "What to record";
  if (variable == "BRICKPROF_BUFFER_MB" || variable == "BRICKPROF_CMDLINE") return "Recording";
  return "GPU";
}

// Whether `word` stands in `text` as a word of its own ("hash" is not in "hashes").
bool names_word(std::string_view text, std::string_view word) {
  auto part_of_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; };
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !part_of_word(text[at - 1])) && (end == text.size() || !part_of_word(text[end])))
      return true;
  }
  return false;
}

// Whether the setting's help already names each of its choices.
bool names_every_choice(const settings::Setting& s) {
  if (s.kind != settings::Kind::kChoice && s.kind != settings::Kind::kCapture) return false;
  for (size_t i = 0; !settings::choice(s.values, i).empty(); ++i) {
    std::string_view choice = settings::choice(s.values, i);
    choice = choice.substr(0, choice.find(':'));  // scope:NAME
    if (!names_word(s.help, choice)) return false;
  }
  return true;
}

// run --help's name of a setting's value.
std::string value_name(const settings::Setting& s) {
  if (!s.value_name.empty()) return std::string(s.value_name);
  if (s.kind == settings::Kind::kCount) return "N";
  if (s.kind == settings::Kind::kChoice) return "MODE";
  return "TEXT";
}

}  // namespace

Command add_run_command(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = parent.add_subcommand("run", "Run a program with the profiler agent loaded");
  sub->add_option("CMD", o->command, "The program to profile and its arguments")
      ->option_text("[--] CMD [ARGS...]");
  // Groups in the order they are listed.
  for (const char* group : {"Output", "What to record", "Recording", "GPU"}) {
    for (size_t i = 0; i < std::size(settings::kSettings); ++i) {
      const settings::Setting& s = settings::kSettings[i];
      if (s.flag.empty() || std::string_view(group_of(s.variable)) != group) continue;
      std::string help = std::string(s.help);
      if (s.kind == settings::Kind::kFormats)
        help += ": " + format_list() + ", " + std::string(kParquet) +
                " (the Python package writes it when CMD ends: a rank's into the folder's "
                "parquet/ dataset, shared by its job, any other trace into PREFIX.parquet/). "
                "The trace (json) is always written: report, diff, merge and view read it";
      else if (const std::string values = settings::valid_values(s);
               !values.empty() && !names_every_choice(s))
        help += " (" + values + ")";
      if (s.variable == "BRICKPROF_OUTPUT")
        help += ": PREFIX.json, PREFIX.tree.txt, ...; a known extension is not doubled "
                "(trace.json is PREFIX trace), and a trailing / is a folder with the default "
                "names, made if missing";
      help += ". Env " + std::string(s.variable);
      const std::string names =
          s.variable == "BRICKPROF_OUTPUT" ? "-o," + std::string(s.flag) : std::string(s.flag);
      sub->add_option(names, o->values[i], help)
          ->type_name(value_name(s))
          ->default_str(std::string(s.fallback))
          ->group(group);
    }
  }
  sub->add_flag("--checksums", o->checksums,
                "Checksum mode: after each kernel, a digest of every device buffer it may have "
                "written (its pointer arguments inside live allocations), for diff --outputs and "
                "report --numerics. Digested on the GPU by the agent's reduction kernels, on the "
                "kernel's stream, where they can run, else copied to the host; times are "
                "perturbed either way. Env BRICKPROF_CHECKSUMS=1 (=host: always by host copy)")
      ->group("GPU");
  sub->footer(
      "Everything from CMD on is the program's own (the -- is needed only when CMD starts with "
      "-). The agent is $BRICKPROF_AGENT, else the one beside this binary. When CMD ends, each "
      "file written is listed on stderr ('brickprof: wrote PATH'; none with --log off).\n"
      "Exit code: CMD's, or 128+N if signal N killed it; 125 if CMD exited 0 but no trace was "
      "written (run says why); 126/127 if CMD cannot run or is not found; 2 on usage errors "
      "(checked before CMD starts).\n"
      "Examples:\n"
      "  brickprof run -- python3 serve.py --port 8000\n"
      "  brickprof run -o runs/ --formats json,chrome ./bricklayer --tokens 8\n"
      "  brickprof run --capture 'scope:decode token' --capture-max 4 -- ./engine");
  return {sub, [o](const std::vector<std::string>& trailing) { return run(*o, trailing); }};
}

}  // namespace brickprof::cli
