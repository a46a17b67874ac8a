// brickprof's Python package as the command line uses it: `export` and
// `sql` are the package's (pyarrow writes Parquet, DuckDB and Dask read
// it), and `run --formats parquet` exports each trace through it.
#pragma once

#include <string>
#include <vector>

namespace brickprof::cli {

// $BRICKPROF_PYTHON, else the python3 beside this binary (a virtual
// environment's bin/, where pip put the brickprof command), else python3
// from PATH; `error` says why $BRICKPROF_PYTHON cannot be used.
std::string find_python(std::string* error);

// Replaces this process with the package's `command ARGS...` (--help
// included); returns only when it cannot, with the exit code of its line.
int exec_package(const std::string& command, const std::vector<std::string>& args);

// Runs the package's `command ARGS...` in a child whose environment has no
// agent in it (LD_PRELOAD, the injection paths, BRICKPROF_*), and waits;
// its exit code (127 when python could not start).
int run_package(const std::string& command, const std::vector<std::string>& args);

// "" when the python found has the package and pyarrow; else one line
// saying what to install, for `what` ("--formats parquet").
std::string package_problem(const std::string& what);

}  // namespace brickprof::cli
