// Runs a program with extra environment and captures what it printed, for
// tests that load the agent into real processes.
#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace brickprof::test {

struct Result {
  int status = 0;  // raw wait status
  std::string out;
  std::string err;
  long peak_rss_kb = 0;  // the child's peak resident memory (ru_maxrss)
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
};

// Runs argv with `env` added to this process's environment. With
// `wait_for_ready_then_term`, sends SIGTERM once the child printed a line.
// `address_space_bytes`: the child's RLIMIT_AS (0: none).
Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           bool wait_for_ready_then_term = false, uint64_t address_space_bytes = 0);

}  // namespace brickprof::test
