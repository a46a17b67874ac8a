// The help formatter (see help_format.h).
#include "tools/help_format.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace brickprof::cli {
namespace {

constexpr size_t kMinWidth = 40, kMaxWidth = 100, kPipedWidth = 80;
constexpr size_t kNameColumn = 26;  // where option descriptions start
constexpr const char* kLastGroup = "Other";

// "-o, --output FILE", "--threshold PCT", "FILE".
std::string option_label(const CLI::Option* opt, bool positional) {
  if (positional) return opt->get_name(true, false);
  std::string label;
  for (const std::string& s : opt->get_snames()) label += (label.empty() ? "-" : ", -") + s;
  for (const std::string& l : opt->get_lnames()) label += (label.empty() ? "--" : ", --") + l;
  if (opt->get_type_size() != 0 && !opt->get_type_name().empty()) {
    label += " " + opt->get_type_name();
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) label += " ...";
  }
  return label;
}

std::string spaces(size_t n) { return std::string(n, ' '); }

// The command's full name: "brickprof report".
std::string full_name(const CLI::App* app) {
  std::string name = app->get_name();
  for (const CLI::App* p = app->get_parent(); p != nullptr; p = p->get_parent())
    name = p->get_name() + " " + name;
  return name;
}

}  // namespace

size_t help_width() {
  size_t width = 0;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(columns, &end, 10);
    if (*end == '\0' && value > 0) width = value;
  }
  if (width == 0) {
    winsize size{};
    if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col)
      width = size.ws_col;
    else
      width = kPipedWidth;
  }
  return std::clamp(width, kMinWidth, kMaxWidth);
}

size_t text_width(std::string_view text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

std::string wrap_text(std::string_view text, size_t width, size_t first, size_t rest) {
  std::string out;
  size_t indent = first;
  bool first_line = true;
  while (true) {
    const size_t newline = text.find('\n');
    std::string_view paragraph = text.substr(0, newline);
    std::string line = spaces(indent);
    size_t used = indent;
    bool empty = true;
    size_t at = 0;
    while (at < paragraph.size()) {
      const size_t start = paragraph.find_first_not_of(' ', at);
      if (start == std::string_view::npos) break;
      const size_t end = std::min(paragraph.find(' ', start), paragraph.size());
      std::string_view word = paragraph.substr(start, end - start);
      size_t w = text_width(word);
      // A word longer than a whole line is cut where the line ends.
      const size_t room = width > rest ? width - rest : 1;
      if (w > room) {
        size_t bytes = 0, chars = 0;
        for (; bytes < word.size(); ++bytes) {
          const bool lead = (static_cast<unsigned char>(word[bytes]) & 0xc0) != 0x80;
          if (lead && chars == room) break;
          chars += lead;
        }
        word = word.substr(0, bytes);
        w = text_width(word);
        at = start + bytes;
      } else {
        at = end;
      }
      if (!empty && used + 1 + w > width) {
        out += line + '\n';
        line = spaces(rest);
        used = rest;
        empty = true;
      }
      if (!empty) line += ' ', ++used;
      line += word;
      used += w;
      empty = false;
    }
    if (!empty || first_line || newline != std::string_view::npos) out += line + '\n';
    first_line = false;
    indent = rest;
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  // Lines of only spaces (an empty paragraph) carry no indent.
  std::string cleaned;
  std::istringstream lines(out);
  for (std::string l; std::getline(lines, l);) {
    if (l.find_first_not_of(' ') == std::string::npos) l.clear();
    cleaned += l + '\n';
  }
  return cleaned;
}

HelpFormatter::HelpFormatter(size_t width) : width_(width) { column_width(kNameColumn); }

std::string HelpFormatter::make_description(const CLI::App* app) const {
  std::string description = app->get_description();
  if (description.empty()) return "";
  description = full_name(app) + ": " + description;
  return wrap_text(description, width_, 0, 2) + "\n";
}

std::string HelpFormatter::make_usage(const CLI::App* app, std::string) const {
  std::string usage = "Usage: " + full_name(app);
  if (!app->get_subcommands({}).empty()) usage += " COMMAND";
  usage += " [OPTIONS]";
  for (const CLI::Option* opt : app->get_options([](const CLI::Option* o) {
         return o->get_positional() && !o->get_group().empty();
       })) {
    if (!opt->get_option_text().empty()) {  // written out as it should read
      usage += " " + opt->get_option_text();
      continue;
    }
    std::string name = opt->get_name(true, false);
    if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) name += "...";
    usage += " " + (opt->get_required() ? name : "[" + name + "]");
  }
  return wrap_text(usage, width_, 0, 4);
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool positional) const {
  const std::string label = "  " + option_label(opt, positional);
  std::string description = opt->get_description();
  if (!positional && opt->get_type_size() != 0 && !opt->get_default_str().empty())
    description += " [default: " + opt->get_default_str() + "]";
  const size_t column = get_column_width();
  const size_t used = text_width(label);
  if (used + 2 > column) {  // the description goes under the name
    return label + '\n' + wrap_text(description, width_, column, column);
  }
  std::string wrapped = wrap_text(description, width_, column, column);
  return label + wrapped.substr(used);
}

std::string HelpFormatter::option_groups(const CLI::App* app) const {
  std::string out;
  std::vector<std::string> groups = app->get_groups();
  std::stable_partition(groups.begin(), groups.end(),
                        [](const std::string& g) { return g != kLastGroup; });
  const auto positionals = app->get_options([](const CLI::Option* o) {
    return o->get_positional() && !o->get_group().empty();
  });
  if (!positionals.empty()) {
    out += "Arguments:\n";
    for (const CLI::Option* opt : positionals) out += make_option(opt, true);
    out += '\n';
  }
  for (const std::string& group : groups) {
    if (group.empty()) continue;  // hidden
    const auto options = app->get_options([&group](const CLI::Option* o) {
      return o->nonpositional() && o->get_group() == group;
    });
    if (options.empty()) continue;
    out += wrap_text(group + ":", width_, 0, 2);
    for (const CLI::Option* opt : options) out += make_option(opt, false);
    out += '\n';
  }
  return out;
}

std::string HelpFormatter::make_subcommands(const CLI::App* app, CLI::AppFormatMode) const {
  const auto subcommands = app->get_subcommands({});
  if (subcommands.empty()) return "";
  size_t column = 0;
  for (const CLI::App* sub : subcommands) column = std::max(column, sub->get_name().size());
  column += 4;
  std::string out = "Commands:\n";
  for (const CLI::App* sub : subcommands) {
    const std::string label = "  " + sub->get_name();
    out += label + wrap_text(sub->get_description(), width_, column, column).substr(label.size());
  }
  return out + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  const std::string footer = app->get_footer();
  if (footer.empty()) return "";
  // Indented lines (examples, commands) stay as written; the rest is prose.
  std::string out;
  std::istringstream lines(footer);
  for (std::string line; std::getline(lines, line);) {
    // A heading of its own ("Examples:") stands apart.
    if (!out.empty() && !line.empty() && line.back() == ':' && line.find(' ') == std::string::npos)
      out += '\n';
    if (line.rfind("  ", 0) == 0)
      out += wrap_text(line.substr(2), width_, 2, 6);
    else
      out += wrap_text(line, width_, 0, 0);
  }
  return out;
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name,
                                     CLI::AppFormatMode mode) const {
  std::string out = make_description(app);
  out += make_usage(app, name) + '\n';
  out += make_subcommands(app, mode);
  out += option_groups(app);
  out += make_footer(app);
  return out;
}

void use_help_formatter(CLI::App& app) {
  // Each command holds its own formatter, copied from its parent when it
  // was added: set it on all of them.
  auto formatter = std::make_shared<HelpFormatter>(help_width());
  auto install = [&](CLI::App& a) {
    a.formatter(formatter);
    if (CLI::Option* help = a.get_help_ptr()) help->description("Show this help")->group(kLastGroup);
    if (CLI::Option* version = a.get_option_no_throw("--version")) version->group(kLastGroup);
  };
  install(app);
  for (CLI::App* sub : app.get_subcommands({})) install(*sub);
}

}  // namespace brickprof::cli
