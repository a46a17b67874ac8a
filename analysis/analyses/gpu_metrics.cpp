// The GPU's counters per kernel, brick and scope (see gpu_metrics.h).
#include "analysis/analyses/gpu_metrics.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "analysis/analyses/rows_by_kind_and_name.h"

namespace brickprof {
namespace {

}  // namespace

GpuMetricSum::GpuMetricSum(const GpuMetrics& m)
    : m_(&m), numerator_(m.metrics.size(), 0.0), denominator_(m.metrics.size(), 0.0) {}

void GpuMetricSum::add(const std::vector<double>& v) {
  ++kernels_;
  for (size_t i = 0; i < numerator_.size() && i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    const int32_t w = i < m_->weights.size() ? m_->weights[i] : kSummed;
    if (w == kSummed) {
      numerator_[i] += v[i];
      denominator_[i] += 1;
    } else if (static_cast<size_t>(w) < v.size() && !std::isnan(v[w])) {
      numerator_[i] += v[i] * v[w];
      denominator_[i] += v[w];
    }
  }
}

std::vector<double> GpuMetricSum::values() const {
  std::vector<double> out(numerator_.size(), std::nan(""));
  for (size_t i = 0; i < out.size(); ++i) {
    const int32_t w = i < m_->weights.size() ? m_->weights[i] : kSummed;
    if (denominator_[i] == 0) continue;  // no kernel had it (or all weighed nothing)
    out[i] = w == kSummed ? numerator_[i] : numerator_[i] / denominator_[i];
  }
  return out;
}

std::vector<GpuMetricSum> gpu_metrics_by_node(const Trace& trace) {
  const GpuMetrics& g = trace.gpu_metrics;
  std::vector<GpuMetricSum> by_node(trace.nodes.size(), GpuMetricSum(g));
  for (const NodeGpuMetrics& k : g.nodes) {
    // The kernel and each node above it; a cycle cannot loop for ever.
    uint32_t at = k.node;
    for (size_t steps = 0; at < trace.nodes.size() && steps <= trace.nodes.size(); ++steps) {
      by_node[at].add(k.values);
      at = trace.nodes[at].parent;
    }
  }
  return by_node;
}

GpuMetricReport analyze_gpu_metrics(const Trace& trace) {
  GpuMetricReport r;
  r.status = trace.diagnostics.gpu_metrics;
  const GpuMetrics& g = trace.gpu_metrics;
  r.metrics = g.metrics;
  r.passes = g.passes;
  r.every = g.every;
  r.occurrences_sampled = g.occurrences_sampled;
  r.occurrences_skipped = g.occurrences_skipped;
  if (g.nodes.empty()) return r;
  const std::vector<GpuMetricSum> by_node = gpu_metrics_by_node(trace);
  RowsByKindAndName row_of(trace);
  std::vector<GpuMetricSum> sums;
  for (uint32_t id = 0; id < by_node.size(); ++id) {
    if (by_node[id].kernels() == 0) continue;
    const Node& node = trace.nodes[id];
    const auto [row, fresh] = row_of.add(node);
    if (fresh) {
      r.rows.emplace_back();
      r.rows.back().name = std::string(trace.name(node));
      r.rows.back().kind = node.kind;
      sums.emplace_back(g);
    }
    ++r.rows[row].nodes;
  }
  // A row adds up its nodes' kernels' raw values (weighted means do not add
  // up): each kernel once per row, though nested nodes of one name reach it twice.
  for (const NodeGpuMetrics& k : g.nodes) {
    std::vector<size_t> seen;
    uint32_t at = k.node;
    for (size_t steps = 0; at < trace.nodes.size() && steps <= trace.nodes.size(); ++steps) {
      const Node& node = trace.nodes[at];
      const std::optional<size_t> row = row_of.find(node);
      if (row && std::find(seen.begin(), seen.end(), *row) == seen.end()) {
        seen.push_back(*row);
        sums[*row].add(k.values);
      }
      at = node.parent;
    }
  }
  for (size_t i = 0; i < r.rows.size(); ++i) {
    r.rows[i].values = sums[i].values();
    r.rows[i].kernels = sums[i].kernels();
  }
  std::stable_sort(r.rows.begin(), r.rows.end(), [](const GpuMetricRow& a, const GpuMetricRow& b) {
    return row_kind_rank(a.kind) < row_kind_rank(b.kind);
  });
  return r;
}

}  // namespace brickprof
