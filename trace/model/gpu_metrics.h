// The GPU's hardware counters per kernel (BRICKPROF_GPU_METRICS): what
// CUPTI's range profiler measured for each profiled kernel launch (auto
// ranges, kernel replay), by metric name as Nsight Compute names them. Only
// kernels inside a sampled occurrence of their scope are profiled (one in
// `every`); a scope's figure is its kernels' (analysis/analyses/gpu_metrics.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace brickprof {

// How a metric adds up over several kernels.
inline constexpr int32_t kSummed = -1;  // a count (`.sum`): the kernels' sum

struct NodeGpuMetrics {
  uint32_t node = 0;           // a kernel's node
  std::vector<double> values;  // in the order of GpuMetrics::metrics
};

struct GpuMetrics {
  // The metrics collected: those asked for, then the counts the others are
  // weighted by, each once ("lts__t_sector_hit_rate.pct", ...).
  std::vector<std::string> metrics;
  // Per metric: kSummed, or the index in `metrics` of the count its kernels'
  // values are weighted by when they are combined (a rate or a share of a
  // peak: L2 hit rate by L2 sectors, occupancy by active cycles, others by
  // GPU time), so a scope's figure is exactly what one range over its kernels
  // would give where the weight is the ratio's denominator.
  std::vector<int32_t> weights;
  uint32_t passes = 0;                // replay passes per kernel
  uint64_t every = 0;                 // one occurrence in `every` of each scope path
  uint64_t occurrences_sampled = 0;   // scope occurrences whose kernels were profiled
  uint64_t occurrences_skipped = 0;   // and those that were not
  std::vector<NodeGpuMetrics> nodes;  // by node id, each node at most once
  bool empty() const { return metrics.empty() && nodes.empty(); }
};

}  // namespace brickprof
