// Names the scope that issued a node ("Layer 3 / RmsNorm"), for findings.
#pragma once

#include <string>
#include <vector>

#include "analysis/trace.h"

namespace brickprof {

class ScopeNamer {
 public:
  explicit ScopeNamer(const Trace& trace);
  // Nearest brick and the layer above it, else the nearest layer, else the
  // parent scope's name, else "(no scope)".
  std::string operator()(uint32_t node) const;
  uint32_t brick(uint32_t node) const { return brick_[node]; }

 private:
  const Trace& t_;
  std::vector<uint32_t> brick_;
};

}  // namespace brickprof
