// Per-brick and per-category statistics, derived from a trace's nodes alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/model/queries.h"
#include "trace/model/trace.h"

namespace brickprof {

struct BrickStat {
  std::string name;
  Category category = Category::kOther;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  uint64_t elements = 0;
  // The measured GPU time of the kernels the brick launched (its nearest
  // brick ancestor's): copies and memsets are the transfers view's, and a
  // synchronisation is the host waiting, never GPU time.
  int64_t gpu_ns = 0;
  uint64_t kernels = 0;  // those kernels

  int64_t avg_ns() const { return count ? total_ns / static_cast<int64_t>(count) : 0; }
  // Elements per second of CPU-side time.
  double throughput() const {
    return total_ns > 0 ? static_cast<double>(elements) * 1e9 / static_cast<double>(total_ns) : 0;
  }
};

struct CategoryStat {
  Category category = Category::kOther;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double pct = 0;  // share of all brick time
};

struct TraceStats {
  std::vector<BrickStat> bricks;         // in order of first appearance
  std::vector<CategoryStat> categories;  // Norm, Attention, FFN, Other (+ Communication if any)
  int64_t brick_total_ns = 0;
};

TraceStats compute_stats(const Trace& trace);

// compute_stats one node at a time, in any order (the agent's streaming
// write visits nodes out of id order): bricks are listed by the id of their
// first node, whose category the brick takes. Names are views the caller
// keeps alive until finish().
class StatsBuilder {
 public:
  // The slot of the bricks named `name` (callers may cache it per name).
  size_t slot(std::string_view name);
  // A brick node `id` of that name: the brick takes the category of its
  // lowest id, and is listed in that order.
  void seen(size_t slot, uint32_t id, Category category);
  // The brick node's own time and elements.
  void add_brick(size_t slot, int64_t duration_ns, uint64_t elements);
  // A kernel whose nearest brick ancestor counts towards `slot`.
  void add_kernel(size_t slot, int64_t duration_ns);
  TraceStats finish();

 private:
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<BrickStat> bricks_;
  std::vector<uint32_t> first_id_;
};

// The figures of `report --summary` beyond what the trace states itself
// (process, sources, diagnostics): the brick and category tables, counts,
// the slowest kernel and whether every push had its pop.
struct TraceSummary {
  TraceStats stats;
  uint64_t nodes = 0;
  uint64_t kernels = 0;
  std::optional<SlowestKernel> slowest_kernel;
  bool scope_balanced = true;
  // Some brick runs inside another: its time is in both bricks' totals, and
  // so twice in the category totals (each brick's total counts whole).
  bool nested_bricks = false;
  // The run's time outside every scope (recorded.h); -1 when there is none
  // to tell: no process times, nothing recorded, or a part of the run.
  int64_t outside_scopes_ns = -1;
};

TraceSummary summarize_trace(const Trace& trace);

// For every node, the id of its nearest ancestor of `kind` (itself if it is
// one), or kNoNode. Linear in the number of nodes, whatever their depth.
std::vector<uint32_t> nearest_of_kind(const Trace& trace, NodeKind kind);
std::vector<uint32_t> nearest_brick(const Trace& trace);

}  // namespace brickprof
