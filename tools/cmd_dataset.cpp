// `brickprof export` and `brickprof sql`: a job's traces as Parquet shards,
// and SQL (DuckDB, or Dask across machines) over them. Both are the Python
// package's (python/brickprof/_cli.py: pyarrow writes Parquet, DuckDB and
// Dask read it), so these commands hand their arguments, --help included,
// to `python3 -m brickprof` in the Python environment this brickprof
// belongs to. A python without the package says what to pip install.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "tools/command.h"

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

// $BRICKPROF_PYTHON, else the python3 beside this binary (a virtual
// environment's bin/, where pip put the brickprof command), else python3
// from PATH.
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

int forward(const std::string& command, const std::vector<std::string>& args) {
  std::string error;
  const std::string python = find_python(&error);
  if (!error.empty()) return fail(command + ": " + error);
  std::vector<std::string> argv = {python, "-c", kBootstrap, command};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (std::string& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  std::cout.flush();
  ::execvp(raw[0], raw.data());
  return fail(command + ": cannot run " + python + " (" + std::strerror(errno) +
              "): it needs Python 3 with brickprof's package (pip install '.[jobs]' from "
              "brickprof's source folder); BRICKPROF_PYTHON names another python");
}

Command add_forwarded(CLI::App& parent, const std::string& name, const std::string& help) {
  CLI::App* sub = parent.add_subcommand(name, help);
  sub->prefix_command();  // every argument is the package's
  sub->set_help_flag();   // --help too
  return {sub, [sub, name](const std::vector<std::string>& trailing) {
            std::vector<std::string> args = sub->remaining();
            if (!trailing.empty()) {
              args.push_back("--");
              args.insert(args.end(), trailing.begin(), trailing.end());
            }
            return forward(name, args);
          }};
}

}  // namespace

Command add_export_command(CLI::App& parent) {
  return add_forwarded(parent, "export",
                       "Write rank traces as a job's Parquet shards: export --parquet DIR "
                       "TRACE... (Python package, pyarrow)");
}

Command add_sql_command(CLI::App& parent) {
  return add_forwarded(parent, "sql",
                       "SQL over a job's Parquet shards, or its cross-rank views: sql DIR "
                       "\"QUERY\" | sql DIR --ranks ... (Python package, DuckDB or Dask)");
}

}  // namespace brickprof::cli
