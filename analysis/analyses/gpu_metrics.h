// The GPU's counters per kernel (trace/model/gpu_metrics.h) added up the
// scope tree, as `report --gpu-metrics`, the roofline and the views read
// them. A scope's figure is its profiled kernels': counts summed, every
// other metric the mean of its kernels' values weighted by the count the
// trace names for it (GpuMetrics::weights), so a brick's figure is exactly
// what its kernels' add up to; a value a kernel lacks (null) is left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// Kernels' values combined; one per GpuMetrics (its metrics and weights).
class GpuMetricSum {
 public:
  explicit GpuMetricSum(const GpuMetrics& m);
  void add(const std::vector<double>& kernel_values);
  // Per metric: the sum, or the weighted mean; NaN where no kernel had it.
  std::vector<double> values() const;
  uint64_t kernels() const { return kernels_; }

 private:
  const GpuMetrics* m_;
  std::vector<double> numerator_;    // Σ value (counts), Σ value × weight (others)
  std::vector<double> denominator_;  // Σ weight (others); kernels that had it (counts)
  uint64_t kernels_ = 0;
};

struct GpuMetricRow {
  std::string name;
  NodeKind kind = NodeKind::kScope;
  uint64_t nodes = 0;          // nodes of this name with profiled kernels (the kernels themselves
                               // for a kernel row)
  uint64_t kernels = 0;        // profiled kernels under them
  std::vector<double> values;  // in the order of the trace's metrics
};

struct GpuMetricReport {
  std::string status;                // diagnostics.gpu_metrics
  std::vector<std::string> metrics;  // as the trace names them
  uint32_t passes = 0;
  uint64_t every = 0, occurrences_sampled = 0, occurrences_skipped = 0;
  std::vector<GpuMetricRow> rows;  // bricks, kernels, then layers and scopes; by first appearance
};

GpuMetricReport analyze_gpu_metrics(const Trace& trace);

// Each node's combined figure (its own if a kernel, else its profiled
// kernels'), by node id; nodes without profiled kernels have none (0 kernels).
std::vector<GpuMetricSum> gpu_metrics_by_node(const Trace& trace);

}  // namespace brickprof
