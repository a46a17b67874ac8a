// `--help` as a person reads it: CLI11's formatter, customised to wrap every
// line to the terminal (COLUMNS, else the terminal's width, 80 when not a
// terminal; at most 100, as clap does, so prose stays readable), options in
// their groups (a group named "Other" last, with --help), each with its
// value's name and default, and footers whose indented lines (examples) are
// kept as written.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace brickprof::cli {

// The width help is wrapped to, as above.
size_t help_width();

// Words of `text` wrapped to `width` columns (UTF-8 characters), the first
// line indented by `first`, the others by `rest` spaces; "\n" in `text`
// starts a new line. A word longer than a line stands alone.
std::string wrap_text(std::string_view text, size_t width, size_t first, size_t rest);

// The number of characters (not bytes) of UTF-8 `text`.
size_t text_width(std::string_view text);

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(size_t width);
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_usage(const CLI::App* app, std::string name) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_subcommands(const CLI::App* app, CLI::AppFormatMode mode) const override;

 private:
  std::string option_groups(const CLI::App* app) const;
  size_t width_;
};

// Installs the formatter on `app` (its subcommands inherit it) and moves
// every command's --help into the group "Other".
void use_help_formatter(CLI::App& app);

}  // namespace brickprof::cli
