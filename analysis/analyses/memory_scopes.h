// What memory figures are grouped by: a scope path ("decode / step /
// Layer 3 / Attention", the names from the outermost scope down, so every
// repetition of a scope shares one) and a Python line (a stack's innermost
// frame).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

inline constexpr uint32_t kNoPath = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kNoFrame = std::numeric_limits<uint32_t>::max();

class ScopePaths {
 public:
  explicit ScopePaths(const Trace& trace) : t_(&trace), of_(trace.nodes.size(), kNoPath) {}
  // The path of `node` (kNoPath for kNoNode). Memoised: a node's ancestors
  // are walked once over all calls, whatever the depth.
  uint32_t of(uint32_t node) const;
  uint32_t parent(uint32_t path) const { return paths_[path].parent; }
  uint32_t depth(uint32_t path) const { return paths_[path].depth; }
  size_t size() const { return paths_.size(); }
  // " / "-joined labels (node_label), "(outside every scope)" for kNoPath;
  // `trace` the one the paths were made of.
  std::string text(const Trace& trace, uint32_t path) const;

 private:
  struct Key {
    uint32_t parent;
    StringId name;
    int32_t layer;
    NodeKind kind;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = (uint64_t{k.parent} << 32 | k.name) * 0x9E3779B97F4A7C15ull;
      return std::hash<uint64_t>()(h ^ (uint64_t(uint32_t(k.layer)) << 8 | uint8_t(k.kind)));
    }
  };
  struct Path {
    uint32_t parent;
    uint32_t node;  // one node of this path, for its label
    uint32_t depth;
  };
  // Filled as of() meets nodes (a renderer may name the path of a node
  // the analysis did not reach).
  const Trace* t_;
  mutable std::vector<uint32_t> of_;
  mutable std::vector<Path> paths_;
  mutable std::unordered_map<Key, uint32_t, KeyHash> index_;
};

// The innermost frame of a Python stack, kNoFrame for none.
uint32_t innermost_frame(const Trace& trace, uint32_t python_stack);
// "model.py:212 forward", or "(no Python frame)".
std::string frame_text(const Trace& trace, uint32_t frame);

}  // namespace brickprof
