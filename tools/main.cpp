// The `brickprof` command-line tool: parses the command line with CLI11 and
// dispatches to one subcommand (run, report, diff, merge, ptx, view, export,
// sql). Each subcommand lives in its own cmd_<name>.cpp; adding one is a line in
// kCommands below. Help is tools/help_format.h's; a mistake on the command
// line is answered in words (usage_error.h).
#include <algorithm>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "tools/command.h"
#include "tools/help_format.h"
#include "tools/install_paths.h"
#include "tools/usage_error.h"
#include "trace/model/printable.h"

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
    &add_export_command,
    &add_sql_command,
};

// Where brickprof's own arguments end. After the first "--" everything is a
// command for `run`, never options for us; and `run`'s command may start
// without one (`brickprof run ls -la`, as env, nice or nsys take it): at the
// first argument that is neither one of run's options nor its value.
size_t end_of_own_arguments(const std::vector<std::string>& args, const CLI::App& app,
                            bool* dashes) {
  *dashes = false;
  const CLI::App* run = nullptr;
  bool command_seen = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      *dashes = true;
      return i;
    }
    if (run == nullptr) {
      if (!command_seen && !args[i].empty() && args[i][0] != '-') {
        command_seen = true;
        for (const CLI::App* sub : app.get_subcommands({}))
          if (args[i] == "run" && sub->get_name() == "run") run = sub;
      }
      continue;
    }
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') return i;  // the command
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const CLI::Option* opt = run->get_option_no_throw(name);
    // A value follows unless it is a flag (CLI11: no items expected) or came with "=".
    if (opt != nullptr && opt->get_items_expected_max() != 0 && eq == std::string::npos) ++i;
  }
  return args.size();
}

int main_impl(int argc, char** argv) {
  CLI::App app{"profile CUDA and CPU inference workloads, and report on the traces"};
  app.name("brickprof");
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "brickprof " BRICKPROF_VERSION, "Print the version");
  std::vector<Command> commands;
  for (AddCommand add : kCommands) commands.push_back(add(app));
  app.footer(
      "Run `brickprof COMMAND --help` for a command's options.\n"
      "Examples:\n"
      "  brickprof run -- python3 serve.py\n"
      "  brickprof report brickprof-python3-4242.json --critical-path\n"
      "  brickprof diff base.json new.json");
  use_help_formatter(app);

  const std::vector<std::string> args(argv + 1, argv + argc);
  bool dashes = false;
  const size_t own = end_of_own_arguments(args, app, &dashes);
  std::vector<std::string> head(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(own));
  const std::vector<std::string> trailing(
      args.begin() + static_cast<std::ptrdiff_t>(own + (dashes ? 1 : 0)), args.end());
  if (head.empty() && !dashes) {  // `brickprof` alone: what it can do
    std::cout << app.help();
    return kExitUsage;
  }
  try {
    std::vector<std::string> reversed(head.rbegin(), head.rend());  // CLI11 takes it reversed
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(explain_usage_error(app, head, e));
  }
  for (const Command& c : commands)
    if (c.app->parsed()) return c.run(trailing);
  std::cout << app.help();
  return kExitUsage;
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
