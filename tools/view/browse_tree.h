// The tree the browser shows: the aggregate tree (trace/derive/aggregate_tree.h)
// with one PTX row under each kernel entry per PTX module its launches came
// from, GPU time rolled up to every scope, a sort order, which rows are
// expanded, and the rows that are visible. Rows are the aggregate entries'
// ids (0 is the top, never shown) followed by the PTX rows. Everything is
// linear in the entries except sorting; the visible rows are rebuilt only
// when the expansion or the order changes, in time proportional to them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "trace/derive/aggregate_tree.h"
#include "trace/model/trace.h"

namespace brickprof::view {

inline constexpr uint32_t kNoRow = UINT32_MAX;

// The run's length, which shares of the run divide by: the process's start
// to end, or the nodes' span when the trace has no process times.
int64_t run_span_ns(const Trace& trace);

// What the tree can be ordered by: tree order (first appearance), or a
// column. kChange is the diff's change, given by the caller.
enum class SortKey : uint8_t { kTree, kTotal, kAvg, kCount, kGpu, kName, kChange };

class BrowseTree {
 public:
  BrowseTree(const Trace& trace, AggregateTree tree);

  const Trace& trace() const { return trace_; }
  const AggregateTree& aggregate() const { return tree_; }
  size_t size() const { return parent_.size(); }
  bool empty() const { return child_begin_[root_] == child_begin_[root_ + 1]; }

  bool is_ptx(uint32_t row) const { return row >= tree_.nodes.size(); }
  // The last top-level row, "(outside every scope)": the run's wall time
  // when no scope was open (aggregate_tree.h's time_outside_scopes). An
  // entry of this tree's own with no trace node, like a thread group.
  bool is_outside(uint32_t row) const { return row == outside_; }
  // The aggregate entry of a row (a PTX row's: its kernel's).
  uint32_t entry(uint32_t row) const;
  uint64_t ptx_hash(uint32_t row) const;  // PTX rows only
  uint32_t parent(uint32_t row) const;    // kNoRow for top-level rows
  uint32_t depth(uint32_t row) const;     // 0 for top-level rows
  std::span<const uint32_t> children(uint32_t row) const;
  bool has_children(uint32_t row) const { return !children(row).empty(); }
  bool last_sibling(uint32_t row) const;
  // Total time: the entry's own, a thread group's the sum of its scopes'.
  int64_t total_ns(uint32_t row) const;
  // GPU time: a GPU entry's own, a scope's summed over the GPU work under it.
  int64_t gpu_ns(uint32_t row) const;
  // The row's share of its parent's time, in percent: a scope's of the
  // parent's total, GPU work's of the parent's GPU time, a top-level row's
  // of all top-level rows' (of that kind); -1 when there is nothing to
  // divide by.
  double share(uint32_t row) const;
  // The row's label as every text output writes it (node_label, thread_label,
  // "PTX 0x...", "(outside every scope)"), control characters escaped.
  std::string label(uint32_t row) const;
  // The trace nodes merged into an aggregate entry (built on first use).
  std::span<const uint32_t> members(uint32_t entry);
  // run_span_ns of its trace.
  int64_t run_ns() const { return run_ns_; }
  // The row of a trace node's aggregate entry.
  uint32_t row_of_node(uint32_t node) const { return tree_.of_trace_node[node]; }

  // Orders every row's children; `value` gives kChange's figure per row.
  void sort(SortKey key, bool descending, const std::function<double(uint32_t)>& value = {});
  SortKey sort_key() const { return sort_key_; }
  bool descending() const { return descending_; }

  bool expanded(uint32_t row) const { return expanded_[row]; }
  void set_expanded(uint32_t row, bool expanded);
  // Expands (or collapses) `row` and everything below it.
  void set_expanded_below(uint32_t row, bool expanded);
  // Expands the row's ancestors, so it is visible.
  void reveal(uint32_t row);
  // Expands level by level (kernels' PTX rows excepted) while the visible
  // rows fit in `rows`: the first screen shows as much as fits.
  void expand_to_fit(size_t rows);

  // The visible rows in display order.
  const std::vector<uint32_t>& visible();
  // Position of a visible row in visible(), or SIZE_MAX.
  size_t visible_index(uint32_t row);
  // Every row in display order (as if all were expanded): what search walks.
  const std::vector<uint32_t>& preorder();

 private:
  void add_outside_row(int64_t outside_ns);
  void build_children();
  void build_ptx_rows();
  void roll_up_gpu();
  void invalidate_order() {
    preorder_.clear();
    visible_dirty_ = true;
  }

  const Trace& trace_;
  AggregateTree tree_;
  int64_t run_ns_ = 0;
  uint32_t root_ = 0;                 // the entry whose children are the top-level rows
  uint32_t base_depth_ = 0;           // aggregate depth of the top-level rows
  uint32_t outside_ = kNoRow;         // the "(outside every scope)" entry, if any
  std::vector<uint32_t> ptx_kernel_;  // per PTX row: its kernel entry
  std::vector<uint64_t> ptx_hash_;
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> child_begin_;  // CSR over rows
  std::vector<uint32_t> children_;
  std::vector<int64_t> gpu_ns_;           // per aggregate entry
  std::vector<int64_t> cpu_children_ns_;  // per entry: its CPU children's total
  std::vector<bool> expanded_;
  SortKey sort_key_ = SortKey::kTree;
  bool descending_ = true;
  std::vector<uint32_t> preorder_;
  std::vector<uint32_t> subtree_end_;  // per preorder position: just past its subtree
  std::vector<uint32_t> position_;     // per row: its preorder position
  std::vector<uint32_t> visible_;
  bool visible_dirty_ = true;
  std::vector<uint32_t> member_begin_, members_;
};

}  // namespace brickprof::view
