// What every `brickprof` subcommand provides, and the shared error helpers.
// A subcommand lives in its own cmd_<name>.cpp and is listed once in main.cpp.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof::cli {

// Exit codes (SPEC): 0 ok, 1 regression found, 2 usage or bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;
inline constexpr int kExitUsage = 2;

// Runs a parsed subcommand. `trailing` holds the arguments after the first
// "--" on the command line (only `run` accepts any).
using CommandRun = std::function<int(const std::vector<std::string>& trailing)>;

struct Command {
  CLI::App* app = nullptr;  // the subcommand, as registered on the parent
  CommandRun run;
};

// Each registers its subcommand and options on `parent`.
Command add_run_command(CLI::App& parent);
Command add_report_command(CLI::App& parent);
Command add_diff_command(CLI::App& parent);
Command add_merge_command(CLI::App& parent);
Command add_ptx_command(CLI::App& parent);
Command add_view_command(CLI::App& parent);
Command add_export_command(CLI::App& parent);  // both forwarded to the Python
Command add_sql_command(CLI::App& parent);     // package (cmd_dataset.cpp)

// Prints "brickprof: <what>" as one line on stderr and returns kExitUsage.
int fail(std::string_view what);

}  // namespace brickprof::cli
