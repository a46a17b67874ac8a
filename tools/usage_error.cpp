// Usage errors in words (see usage_error.h).
#include "tools/usage_error.h"

#include "analysis/analyses/closest_names.h"

namespace brickprof::cli {
namespace {

const CLI::App* subcommand_named(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

// Every spelling of the command's options: "--summary", "-o", "--output".
std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : command.get_options({})) {
    if (opt->get_group().empty()) continue;  // hidden
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::string suggestion(const std::string& typed, const std::vector<std::string>& names) {
  const std::vector<std::string_view> near =
      closest_names(std::vector<std::string_view>(names.begin(), names.end()), typed);
  if (near.empty()) return "";
  std::string text = " (did you mean " + std::string(near[0]);
  for (size_t i = 1; i < near.size(); ++i)
    text += (i + 1 == near.size() ? " or " : ", ") + std::string(near[i]);
  return text + "?)";
}

}  // namespace

std::string explain_usage_error(const CLI::App& app, const std::vector<std::string>& args,
                                const CLI::ParseError& error) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
  // The command, and the arguments given to it.
  const CLI::App* command = nullptr;
  size_t first = 0;
  for (; first < args.size(); ++first) {
    if ((command = subcommand_named(app, args[first])) != nullptr) break;
    if (args[first].empty() || args[first][0] != '-') {
      std::string list;
      for (const std::string& c : commands) list += (list.empty() ? "" : ", ") + c;
      return "unknown command '" + args[first] + "'" + suggestion(args[first], commands) +
             "; the commands are " + list + " (brickprof --help)";
    }
  }
  const std::string what = error.what();
  if (command == nullptr) return what + " (brickprof --help)";
  const std::string name = command->get_name();
  const std::string help = " (brickprof " + name + " --help)";
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    for (size_t i = first + 1; i < args.size(); ++i) {
      const std::string& arg = args[i];
      if (arg.size() < 2 || arg[0] != '-') continue;
      const std::string option = arg.substr(0, arg.find('='));
      if (command->get_option_no_throw(option) != nullptr ||
          app.get_option_no_throw(option) != nullptr)
        continue;
      return name + ": unknown option " + option + suggestion(option, option_names(*command)) +
             help;
    }
    return name + ": " + what + help;
  }
  return name + ": " + what + help;
}

}  // namespace brickprof::cli
