// Programs with the agent loaded, through the shared runner (see run_program.h).
#include "tests/support/run_program.h"

#include "tests/support/child.h"

namespace brickprof::test {

Result run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
           bool wait_for_ready_then_term, uint64_t address_space_bytes) {
  ChildOptions options;
  for (const auto& [name, value] : env) options.env.emplace_back(name, value);
  options.address_space_bytes = address_space_bytes;
  options.term_after_first_line = wait_for_ready_then_term;
  return run_child(argv, options);
}

}  // namespace brickprof::test
