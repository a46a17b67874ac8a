// Shared helpers for the analyses tests: load a fixture, find a node.
#pragma once

#include <string>
#include <string_view>

#include "analysis/trace_json.h"

namespace brickprof::test {

inline Trace load(const std::string& name) {
  return read_trace_file(std::string(ANALYSES_DATA) + "/" + name);
}

inline uint32_t find(const Trace& t, std::string_view name) {
  for (uint32_t i = 0; i < t.nodes.size(); ++i)
    if (t.name(t.nodes[i]) == name) return i;
  return kNoNode;
}

}  // namespace brickprof::test
