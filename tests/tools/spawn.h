// Runs the built `brickprof` binary as a child process for CLI tests.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace brickprof::test {

struct CliResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;
  std::string err;
};

// Environment changes for the child: a value sets, nullopt unsets.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

CliResult run_brickprof(const std::vector<std::string>& args, const EnvChanges& env = {});

std::string data_path(const std::string& name);
std::string read_text(const std::string& path);
// A fresh empty directory under the test temp dir.
std::string fresh_dir(const std::string& name);
// Writes a copy of data file `source` with each `from` replaced (once, and
// it must occur) by `to` into a fresh directory; returns the copy's path.
std::string edited_copy(const std::string& source, const std::string& copy_name,
                        const std::vector<std::pair<std::string, std::string>>& edits);

}  // namespace brickprof::test
