// What a program says of itself while it runs: named values it samples
// (brickprof_counter: an L2 hit rate, a batch size, a queue depth) and the
// tokens it produced (brickprof_tokens), each on the thread and under the
// scope that reported it. The analyses turn tokens into tokens per second
// and time per token (analysis/analyses/tokens.h).
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/model/ids.h"
#include "trace/model/string_table.h"

namespace brickprof {

enum class CounterKind : uint8_t {
  kValue,   // a sample: the value from now until the next sample of the name
  kTokens,  // `value` tokens produced now (a count, added up)
};

struct CounterSample {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  uint32_t scope = kNoNode;  // the innermost scope open on the thread then
  CounterKind kind = CounterKind::kValue;
  StringId name = 0;  // kValue: the program's name; kTokens: "tokens"
  double value = 0;
};

// The name a kTokens sample carries and its track is shown under.
inline constexpr std::string_view kTokensName = "tokens";

}  // namespace brickprof
