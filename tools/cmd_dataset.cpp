// `brickprof export` and `brickprof sql`: a job's traces as Parquet shards,
// and SQL (DuckDB, or Dask across machines) over them. Both are the Python
// package's (python/brickprof/_cli.py: pyarrow writes Parquet, DuckDB and
// Dask read it), so these commands hand their arguments, --help included,
// to `python3 -m brickprof` in the Python environment this brickprof
// belongs to. A python without the package says what to pip install.
#include <memory>
#include <string>
#include <vector>

#include "tools/command.h"
#include "tools/python_package.h"

namespace brickprof::cli {
namespace {

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
            return exec_package(name, args);
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
