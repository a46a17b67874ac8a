// A command-line mistake answered in words: CLI11's parse errors turned into
// one line that says what was wrong and what was probably meant (a near
// option or command name), naming the command and its --help.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace brickprof::cli {

// The line for `error`, thrown while parsing `args` (brickprof's own
// arguments, in order) with `app`.
std::string explain_usage_error(const CLI::App& app, const std::vector<std::string>& args,
                                const CLI::ParseError& error);

}  // namespace brickprof::cli
