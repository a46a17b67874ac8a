// Names the scope that issued a node ("Layer 3 / RmsNorm"), for findings.
// Models keep node ids; renderers name them with this, so no analysis
// copies names (which may be megabytes long) per finding.
#pragma once

#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

class ScopeNamer {
 public:
  // Linear in the trace: one memoised walk per kind, whatever the depth.
  explicit ScopeNamer(const Trace& trace);
  // Nearest brick and the layer above it, else the nearest layer, else the
  // parent scope's name, else "(no scope)". O(1) plus the names' length.
  std::string operator()(uint32_t node) const;
  uint32_t brick(uint32_t node) const { return brick_[node]; }

 private:
  const Trace& t_;
  std::vector<uint32_t> brick_;  // nearest brick at or above each node
  std::vector<uint32_t> layer_;  // nearest layer at or above each node
};

}  // namespace brickprof
