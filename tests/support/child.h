// Runs a program as a child process and keeps what it printed and how it
// ended: the one runner of the tests that start programs (the CLI, programs
// with the agent loaded, bricklayer).
#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace brickprof::test {

// Environment changes for the child: a value sets, nullopt unsets.
using EnvChanges = std::vector<std::pair<std::string, std::optional<std::string>>>;

struct ChildOptions {
  EnvChanges env;
  uint64_t address_space_bytes = 0;  // the child's RLIMIT_AS (0: none)
  // Send SIGTERM once the child printed its first line on stdout.
  bool term_after_first_line = false;
};

struct ChildResult {
  int status = 0;  // raw wait status
  std::string out;
  std::string err;
  long peak_rss_kb = 0;  // the child's peak resident memory (ru_maxrss)
  // The exit code, or -1 if a signal ended it.
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
  // As a shell reports it: the exit code, or 128 + N when signal N ended it.
  int shell_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
};

// Runs argv (argv[0] looked up in PATH), stdin from /dev/null; exit code 127
// if it cannot start.
ChildResult run_child(const std::vector<std::string>& argv, const ChildOptions& options = {});

}  // namespace brickprof::test
