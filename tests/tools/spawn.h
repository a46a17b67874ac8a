// Runs the built `brickprof` binary as a child process for CLI tests.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/child.h"
#include "tests/support/read_file.h"

namespace brickprof::test {

struct CliResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;
  std::string err;
};

CliResult run_brickprof(const std::vector<std::string>& args, const EnvChanges& env = {});

std::string data_path(const std::string& name);
// A fresh empty directory under the test temp dir.
std::string fresh_dir(const std::string& name);
// Writes a copy of data file `source` with each `from` replaced (once, and
// it must occur) by `to` into a fresh directory; returns the copy's path.
std::string edited_copy(const std::string& source, const std::string& copy_name,
                        const std::vector<std::pair<std::string, std::string>>& edits);

}  // namespace brickprof::test
