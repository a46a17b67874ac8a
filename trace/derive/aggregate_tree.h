// The aggregate tree: the trace's scope tree with repeats folded together.
// Real traces repeat (tokens x layers x bricks), so children of one parent
// that look the same are merged into one entry with a count and totals, and
// their children are merged recursively. The tree, DOT and folded exporters
// all render this one structure.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/model/recorded.h"
#include "trace/model/trace.h"

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
  // Wall time inside some outermost CPU scope, on any thread (the union of
  // their intervals): the run's time less this is "(outside every scope)".
  int64_t scoped_ns = 0;
  // False for a part of a trace (report --under): the run's time is not
  // its own, so there is no time outside every scope to show.
  bool whole_trace = true;

  const AggregateNode& top() const { return nodes[0]; }
  bool is_thread_group(uint32_t agg) const { return nodes[agg].depth == 1; }
  // Thread groups are only worth showing when there are several of them.
  bool multi_thread() const { return nodes[0].child_count > 1; }
  // Fills `out` with the children of `agg` in order.
  void children(uint32_t agg, std::vector<uint32_t>& out) const;
};

// The run's wall time outside every scope (recorded_wall_ns less
// scoped_ns), shown as a row "(outside every scope)" beside the top-level
// entries so they add up to the run's time; -1 when there is no such row:
// a part of a trace, a trace without process times, or nothing recorded.
int64_t time_outside_scopes(const Trace& trace, const AggregateTree& tree);

// Adds `node` as the last child of `parent` (its parent and depth set);
// returns its index.
uint32_t append_child(AggregateTree& tree, uint32_t parent, AggregateNode node);
inline constexpr std::string_view kOutsideScopesLabel = "(outside every scope)";

// Merge rule: same parent entry and same (kind, name); additionally the same
// launch configuration (grid, block, smem) for kernels, since the tree line
// prints it, and the same direction for transfers. Unnamed layers and bricks
// are told apart by layer index and brick id. Linear in the trace size.
AggregateTree build_aggregate_tree(const Trace& trace);

// build_aggregate_tree one node at a time, for writers that visit the
// trace's nodes in its depth-first order without holding them (the agent's
// streaming write): numbering and sibling order are order of enter().
class AggregateBuilder {
 public:
  AggregateBuilder();
  ~AggregateBuilder();
  AggregateBuilder(const AggregateBuilder&) = delete;
  AggregateBuilder& operator=(const AggregateBuilder&) = delete;
  // The entry grouping the roots of one OS thread.
  uint32_t thread_group(uint32_t tid);
  // Merges a node into the children of `parent_agg` (counting it, with its
  // elements and bytes); `first` is recorded as the entry's first member
  // when the entry is new. `name` is compared as an id: equal texts must
  // have equal ids. Returns the entry.
  uint32_t enter(const Node& node, const GpuDetail* detail, uint32_t parent_agg, uint32_t first);
  // The same for a node known to merge into `agg` (a caller's cache of
  // what enter() returned for an equal node under the same parent).
  void enter_again(uint32_t agg, const Node& node, const GpuDetail* detail) {
    AggregateNode& a = tree_.nodes[agg];
    a.count++;
    a.elements += node.elements;
    if (detail) a.bytes += detail->bytes;
  }
  // The node's duration: added to its entry's total and self time, and
  // taken off `cpu_parent_agg`'s self time (kNoAgg unless a CPU node's
  // parent is a CPU node).
  void add_time(uint32_t agg, int64_t duration_ns, uint32_t cpu_parent_agg);
  // An outermost CPU scope's interval, for scoped_ns: in start order.
  void add_root_span(int64_t start_ns, int64_t end_ns) { scoped_.add(start_ns, end_ns); }
  size_t size() const { return tree_.nodes.size(); }
  const AggregateNode& entry(uint32_t agg) const { return tree_.nodes[agg]; }
  AggregateTree finish();

 private:
  struct Index;  // (parent entry, kind, name, ...) -> entry
  uint32_t add_child(uint32_t parent, AggregateNode node);
  AggregateTree tree_;
  std::unique_ptr<Index> index_;
  std::unordered_map<uint32_t, uint32_t> groups_;
  SpanUnion scoped_;
};

}  // namespace brickprof
