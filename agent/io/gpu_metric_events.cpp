// The gpu_metrics section from profiled launches (see gpu_metric_events.h).
#include "agent/io/gpu_metric_events.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace brickprof::agent {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The count a metric's kernels are weighted by; empty: it is summed.
std::string_view weight_of(std::string_view metric) {
  if (ends_with(metric, ".sum")) return {};
  if (metric.starts_with("lts__t_sector_hit_rate")) return "lts__t_sectors.sum";
  if (metric.starts_with("sm__warps_active")) return "sm__cycles_active.sum";
  return "gpu__time_duration.sum";
}

}  // namespace

GpuMetricPlan plan_gpu_metrics(const std::vector<std::string>& asked) {
  GpuMetricPlan plan;
  auto index_of = [&plan](std::string_view name) -> int32_t {
    auto at = std::find(plan.metrics.begin(), plan.metrics.end(), name);
    if (at != plan.metrics.end()) return static_cast<int32_t>(at - plan.metrics.begin());
    plan.metrics.emplace_back(name);
    plan.weights.push_back(kSummed);  // every weight is a .sum
    return static_cast<int32_t>(plan.metrics.size() - 1);
  };
  for (const std::string& m : asked) index_of(m);
  const size_t asked_count = plan.metrics.size();
  for (size_t i = 0; i < asked_count; ++i) {
    const std::string_view weight = weight_of(plan.metrics[i]);
    if (weight.empty()) continue;
    const int32_t w = index_of(weight);  // may grow the vectors: index, not reference
    plan.weights[i] = w;
  }
  return plan;
}

uint64_t place_gpu_metrics(const std::vector<ProfiledLaunch>& launches, const StagedRecords& staged,
                           GpuMetrics& out) {
  // The kernel node of each correlation: the kept kernel records'.
  std::vector<std::pair<uint32_t, uint32_t>> kernels;
  for (size_t i = 0; i < staged.size(); ++i) {
    const StagedRecord& r = staged[i];
    if (r.node.kind == NodeKind::kKernel && r.id != kNoNode && r.detail.graph_node == 0)
      kernels.emplace_back(static_cast<uint32_t>(r.detail.correlation), r.id);
  }
  std::sort(kernels.begin(), kernels.end());
  uint64_t unplaced = 0;
  for (const ProfiledLaunch& l : launches) {
    auto at = std::lower_bound(kernels.begin(), kernels.end(),
                               std::pair<uint32_t, uint32_t>{l.correlation, 0});
    if (at == kernels.end() || at->first != l.correlation) {
      ++unplaced;
      continue;
    }
    out.nodes.push_back({at->second, l.values});
  }
  std::sort(out.nodes.begin(), out.nodes.end(),
            [](const NodeGpuMetrics& a, const NodeGpuMetrics& b) { return a.node < b.node; });
  return unplaced;
}

}  // namespace brickprof::agent
