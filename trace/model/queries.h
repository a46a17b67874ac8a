// Small queries over a trace that exporters, reports and tests share:
// children lists, roots, kernel nodes, the slowest kernel, scope balance,
// and the display label of a node.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// Children of every node in compressed (CSR) form, built in O(N) by a
// counting pass over `parent`. Within each list, and among the roots, nodes
// are in start-time order (ties by id); already-ordered lists, the usual
// case, are not sorted again.
class ChildIndex {
 public:
  explicit ChildIndex(const Trace& trace);

  std::span<const uint32_t> children(uint32_t node) const {
    return {children_.data() + offsets_[node], offsets_[node + 1] - offsets_[node]};
  }
  // Nodes with no parent.
  std::span<const uint32_t> roots() const { return roots_; }

 private:
  std::vector<uint32_t> offsets_;   // size N + 1
  std::vector<uint32_t> children_;  // node ids grouped by parent
  std::vector<uint32_t> roots_;
};

// Ids of all kernel nodes, in id order.
std::vector<uint32_t> kernel_nodes(const Trace& trace);

struct SlowestKernel {
  uint32_t kernel = kNoNode;
  uint32_t brick = kNoNode;  // nearest enclosing brick, kNoNode if none
  int64_t gpu_ns = 0;
};
// The single kernel launch with the longest GPU time (first one on ties).
std::optional<SlowestKernel> slowest_kernel(const Trace& trace);

// True when the recorder saw every push matched by a pop: no unbalanced
// pops and no scopes still open at exit.
bool is_scope_balanced(const Trace& trace);

// What a node is called in text outputs: its name, or for unnamed layers
// "Layer <index>", unnamed bricks their well-known name, transfers their
// direction ("H2D"), memsets "memset", unnamed syncs "sync <kind>".
std::string node_label(const Trace& trace, const Node& node);
// The same from the node's name and details (for writers without a Trace).
std::string node_label(std::string_view name, const Node& node, const GpuDetail* detail);

// Thread line label: "Thread <tid> (<name>)", or "Thread <tid>" unnamed.
std::string thread_label(const Trace& trace, uint32_t tid);
// The same for many threads: an index built once (thread_label reads the
// whole thread list, and a trace may list 10^5 threads).
class ThreadLabels {
 public:
  explicit ThreadLabels(const Trace& trace);
  std::string operator()(uint32_t tid) const;

 private:
  std::unordered_map<uint32_t, std::string_view> names_;  // the first non-empty name
};

}  // namespace brickprof
