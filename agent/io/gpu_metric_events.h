// What the range profiler measured per kernel launch, and how it becomes the
// trace's gpu_metrics section (trace/model/gpu_metrics.h): which counts the
// asked-for metrics are weighted by (plan_gpu_metrics), and each launch's
// values put on its kernel's node by correlation id (place_gpu_metrics).
// No CUPTI here: cupti/range_profiler.* measures, this files the figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

// The metrics to collect: those asked for in their order, then each weight
// one of them needs that is not already there. A `.sum` is a count and
// adds up; L2 hit rate is weighted by the L2 sectors (lts__t_sectors.sum),
// achieved occupancy by the SMs' active cycles (sm__cycles_active.sum),
// and every other rate or share of a peak by the kernel's GPU time
// (gpu__time_duration.sum), so combining kernels gives what one range over
// them would where the weight is the ratio's denominator.
struct GpuMetricPlan {
  std::vector<std::string> metrics;
  std::vector<int32_t> weights;  // kSummed, or an index in `metrics`
};
GpuMetricPlan plan_gpu_metrics(const std::vector<std::string>& asked);

// One profiled launch: its correlation id and a value per planned metric.
struct ProfiledLaunch {
  uint32_t correlation = 0;
  std::vector<double> values;
};

// Into `out.nodes`, in node order: each launch's values on the kernel node
// of its correlation (the staged records' ids). Returns how many launches
// found no kernel node (its record dropped or left out of the capture).
uint64_t place_gpu_metrics(const std::vector<ProfiledLaunch>& launches, const StagedRecords& staged,
                           GpuMetrics& out);

}  // namespace brickprof::agent
