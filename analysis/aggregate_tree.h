// The aggregate tree: the trace's scope tree with repeats folded together.
// Real traces repeat (tokens x layers x bricks), so children of one parent
// that look the same are merged into one entry with a count and totals, and
// their children are merged recursively. The tree, DOT and folded exporters
// all render this one structure.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/trace.h"

namespace brickprof {

inline constexpr uint32_t kNoAgg = kNoNode;

struct AggregateNode {
  // The first trace node merged here: it gives the kind, label, category
  // and launch configuration. kNoNode for the top and for thread groups.
  uint32_t first = kNoNode;
  uint32_t parent = kNoAgg;
  uint32_t first_child = kNoAgg;
  uint32_t last_child = kNoAgg;
  uint32_t next_sibling = kNoAgg;
  uint32_t child_count = 0;
  uint32_t depth = 0;   // top = 0, thread groups = 1, roots = 2
  uint32_t thread = 0;  // for thread groups: the OS thread id
  uint64_t count = 0;   // trace nodes merged here
  int64_t total_ns = 0;
  // Time not covered by CPU children (CPU nodes) or the whole duration (GPU
  // nodes): the flame-graph weight. Never negative.
  int64_t self_ns = 0;
  uint64_t elements = 0;
  uint64_t bytes = 0;  // transfers and memsets
};

// Nodes are in first-appearance order: a parent before its children, and
// siblings in the order their first member started. Node 0 is the top; its
// children are one group per OS thread that owns roots.
struct AggregateTree {
  std::vector<AggregateNode> nodes;
  // For each trace node, the aggregate node it was merged into.
  std::vector<uint32_t> of_trace_node;

  const AggregateNode& top() const { return nodes[0]; }
  bool is_thread_group(uint32_t agg) const { return nodes[agg].depth == 1; }
  // Thread groups are only worth showing when there are several of them.
  bool multi_thread() const { return nodes[0].child_count > 1; }
  // Fills `out` with the children of `agg` in order.
  void children(uint32_t agg, std::vector<uint32_t>& out) const;
};

// Merge rule: same parent entry and same (kind, name); additionally the same
// launch configuration (grid, block, smem) for kernels, since the tree line
// prints it, and the same direction for transfers. Unnamed layers and bricks
// are told apart by layer index and brick id. Linear in the trace size.
AggregateTree build_aggregate_tree(const Trace& trace);

}  // namespace brickprof
