// Runs a program with extra environment and captures what it printed, for
// tests that load the agent into real processes (tests/support/child.h with
// the environment as a map).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/child.h"

namespace brickprof::test {

using Result = ChildResult;

// Runs argv with `env` added to this process's environment. With
// `wait_for_ready_then_term`, sends SIGTERM once the child printed a line.
// `address_space_bytes`: the child's RLIMIT_AS (0: none).
Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           bool wait_for_ready_then_term = false, uint64_t address_space_bytes = 0);

}  // namespace brickprof::test
