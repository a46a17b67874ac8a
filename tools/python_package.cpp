// Running brickprof's Python package (see python_package.h).
#include "tools/python_package.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "tools/command.h"

extern char** environ;

namespace brickprof::cli {
namespace {

namespace fs = std::filesystem;

// Runs the package's command line; one line naming what to install when the
// package (or a version of it without these commands) is not there.
constexpr const char* kBootstrap =
    "import sys\n"
    "try:\n"
    "    from brickprof._cli import main\n"
    "except ImportError as e:\n"
    "    sys.stderr.write(\"brickprof: %s needs brickprof's Python package with its jobs extras \""
    "\"in %s (%s): pip install '.[jobs]' from brickprof's source folder\\n\" % (sys.argv[1], "
    "sys.executable, e))\n"
    "    sys.exit(2)\n"
    "sys.exit(main(sys.argv[1:]))\n";

// Exit 0 when the package's Parquet writer can run.
constexpr const char* kProbe = "import brickprof._cli, brickprof._shards, pyarrow.parquet\n";

std::vector<char*> raw(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (std::string& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// The agent's variables, which `brickprof run` set for CMD: a python it
// starts afterwards is not to be profiled.
bool agent_variable(std::string_view entry) {
  for (std::string_view name : {"LD_PRELOAD=", "CUDA_INJECTION64_PATH=", "NVTX_INJECTION64_PATH="})
    if (entry.starts_with(name)) return true;
  return entry.starts_with("BRICKPROF_") && !entry.starts_with("BRICKPROF_PYTHON=");
}

// Runs argv with the agent's variables removed; its exit code.
int spawn_without_agent(std::vector<std::string> argv, bool quiet) {
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<std::string> kept;
    for (char** e = environ; *e; ++e)
      if (!agent_variable(*e)) kept.emplace_back(*e);
    std::vector<char*> env = raw(kept);
    if (quiet) {
      ::close(STDOUT_FILENO);
      ::close(STDERR_FILENO);
    }
    std::vector<char*> args = raw(argv);
    ::execvpe(args[0], args.data(), env.data());
    ::_exit(127);
  }
  if (pid < 0) return 127;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

std::string find_python(std::string* error) {
  if (const char* env = std::getenv("BRICKPROF_PYTHON"); env && *env) {
    if (::access(env, X_OK) != 0) *error = std::string("BRICKPROF_PYTHON=") + env + ": not found";
    return env;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path() / "python3";
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return "python3";
}

int exec_package(const std::string& command, const std::vector<std::string>& args) {
  std::string error;
  const std::string python = find_python(&error);
  if (!error.empty()) return fail(command + ": " + error);
  std::vector<std::string> argv = {python, "-c", kBootstrap, command};
  argv.insert(argv.end(), args.begin(), args.end());
  std::cout.flush();
  ::execvp(argv[0].c_str(), raw(argv).data());
  return fail(command + ": cannot run " + python + " (" + std::strerror(errno) +
              "): it needs Python 3 with brickprof's package (pip install '.[jobs]' from "
              "brickprof's source folder); BRICKPROF_PYTHON names another python");
}

int run_package(const std::string& command, const std::vector<std::string>& args) {
  std::string error;
  const std::string python = find_python(&error);
  std::vector<std::string> argv = {python, "-c", kBootstrap, command};
  argv.insert(argv.end(), args.begin(), args.end());
  return spawn_without_agent(argv, false);
}

std::string package_problem(const std::string& what) {
  std::string error;
  const std::string python = find_python(&error);
  if (!error.empty()) return what + ": " + error;
  if (spawn_without_agent({python, "-c", kProbe}, true) == 0) return "";
  return what + " needs brickprof's Python package with its jobs extras (pyarrow) in " + python +
         ": pip install '.[jobs]' from brickprof's source folder; BRICKPROF_PYTHON names "
         "another python";
}

}  // namespace brickprof::cli
