// The `brickprof` command-line tool: parses the command line with CLI11 and
// dispatches to one subcommand (run, report, diff, merge, ptx, view). Each
// subcommand lives in its own cmd_<name>.cpp; adding one is a line in
// kCommands below.
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/model/printable.h"
#include "tools/command.h"
#include "tools/install_paths.h"

namespace brickprof::cli {

int fail(std::string_view what) {
  // One line of printable text, whatever the message held (it may quote a
  // corrupt file or a name from a trace): line breaks become spaces, the
  // rest as every text output writes names.
  std::string line(what);
  std::replace_if(
      line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  line = printable(line);
  std::cerr << "brickprof: " << line << std::endl;
  return kExitUsage;
}

namespace {

using AddCommand = Command (*)(CLI::App&);
constexpr AddCommand kCommands[] = {
    &add_run_command,
    &add_report_command,
    &add_diff_command,
    &add_merge_command,
    &add_ptx_command,
    &add_view_command,
};

int main_impl(int argc, char** argv) {
  // Everything after the first "--" is a command for `run`, never options
  // for us; CLI11 parses only what comes before it.
  std::vector<std::string> head, trailing;
  bool split = false;
  for (int i = 1; i < argc; ++i) {
    if (!split && std::strcmp(argv[i], "--") == 0)
      split = true;
    else
      (split ? trailing : head).emplace_back(argv[i]);
  }
  CLI::App app{"brickprof: profile CUDA and CPU inference workloads, and report on the traces"};
  app.name("brickprof");
  app.require_subcommand(1);
  app.set_version_flag("--version", "brickprof " BRICKPROF_VERSION);
  std::vector<Command> commands;
  for (AddCommand add : kCommands) commands.push_back(add(app));
  try {
    std::reverse(head.begin(), head.end());  // CLI11 takes the vector reversed
    app.parse(head);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(e.what());
  }
  for (const Command& c : commands)
    if (c.app->parsed()) return c.run(trailing);
  return fail("no command given (try --help)");
}

}  // namespace
}  // namespace brickprof::cli

int main(int argc, char** argv) {
  try {
    return brickprof::cli::main_impl(argc, argv);
  } catch (const std::exception& e) {
    return brickprof::cli::fail(e.what());
  }
}
