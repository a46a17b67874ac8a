// Where a command's output goes: to -o FILE, written atomically, its path
// then said on stderr as `run` lists its files ("brickprof: wrote PATH"),
// or to standard output. Binary output refuses a terminal.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace brickprof::cli {

// "brickprof: wrote /abs/path" on stderr.
void say_written(const std::string& path);

// `path` against the current folder unless it is absolute.
std::string absolute_path(const std::string& path);

// True when standard output is a terminal.
bool stdout_is_terminal();

// The problem with sending binary output (`what`, e.g. "--perfetto") to
// standard output, or "" when it is not a terminal.
std::string binary_to_terminal_problem(const std::string& what);

// Writes what `fill` streams to `path` (atomically; then says where), or to
// standard output when `path` is empty. Returns kExitOk, or fail()'s code
// with the error line (exceptions from `fill` become it).
int write_output(const std::string& path, const std::function<void(std::ostream&)>& fill);

}  // namespace brickprof::cli
