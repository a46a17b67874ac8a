// The `report --gpu-metrics` view: the GPU's counters per brick, kernel and
// scope (analyses/gpu_metrics.h), from the kernels CUPTI's range profiler
// profiled.
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "analysis/analyses/gpu_metrics.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

GpuMetricReport compute(const Trace& t, const ViewSettings&) { return analyze_gpu_metrics(t); }

// A column's heading: the default metrics by what they mean, others as named.
std::string heading(std::string_view metric) {
  if (metric == "lts__t_sector_hit_rate.pct") return "L2 hit";
  if (metric == "dram__bytes_read.sum") return "DRAM read";
  if (metric == "dram__bytes_write.sum") return "DRAM write";
  if (metric == "sm__warps_active.avg.pct_of_peak_sustained_active") return "Occupancy";
  if (metric == "sm__throughput.avg.pct_of_peak_sustained_elapsed") return "SM busy";
  if (metric == "lts__t_sectors.sum") return "L2 sectors";
  if (metric == "sm__cycles_active.sum") return "SM cycles";
  if (metric == "gpu__time_duration.sum") return "GPU time";
  return std::string(metric);
}

std::string cell(std::string_view metric, double v) {
  if (std::isnan(v)) return "-";
  if (metric.ends_with(".pct") || metric.find(".pct_") != std::string_view::npos)
    return format_fixed(v, 1) + "%";
  if (metric.find("bytes") != std::string_view::npos && v >= 0)
    return format_bytes(static_cast<uint64_t>(std::llround(v)));
  if (metric == "gpu__time_duration.sum") return format_duration(std::llround(v));
  return v < 10000 ? format_fixed(v, v == std::floor(v) ? 0 : 2) : format_rate(v);
}

void text(const Trace&, const GpuMetricReport& r, std::ostream& out) {
  if (r.status == "off") {
    out << "GPU metrics: off (collect them with brickprof run --gpu-metrics default, or "
           "BRICKPROF_GPU_METRICS)\n";
    return;
  }
  out << "GPU metrics: " << printable(r.status) << "\n";
  if (r.rows.empty()) {
    out << "No kernel was profiled\n";
    return;
  }
  size_t width = 4;
  for (const GpuMetricRow& row : r.rows) width = std::max(width, printable(row.name).size());
  std::vector<size_t> widths;
  out << "\n"
      << pad_right("Kind", 8) << pad_right("Name", width) << pad_left("Profiled", 10)
      << pad_left("Kernels", 9);
  size_t line = 8 + width + 19;
  for (const std::string& m : r.metrics) {
    widths.push_back(std::max<size_t>(heading(m).size() + 2, 11));
    out << pad_left(heading(m), widths.back());
    line += widths.back();
  }
  out << "\n" << std::string(line, '-') << "\n";
  for (const GpuMetricRow& row : r.rows) {
    out << pad_right(to_string(row.kind), 8) << pad_right(printable(row.name), width)
        << pad_left(std::to_string(row.nodes), 10) << pad_left(std::to_string(row.kernels), 9);
    for (size_t i = 0; i < r.metrics.size(); ++i)
      out << pad_left(cell(r.metrics[i], i < row.values.size() ? row.values[i] : std::nan("")),
                      widths[i]);
    out << "\n";
  }
  out << "(a scope's figures are its profiled kernels': counts summed, rates weighted by the "
         "count each is a share of; only the kernels of 1 in "
      << r.every << " occurrences of each scope path were profiled)\n";
}

void json(const Trace&, const GpuMetricReport& r, JsonWriter& w) {
  w.begin_object().field("status", r.status).key("metrics").begin_array();
  for (const std::string& m : r.metrics) w.value(m);
  w.end_array();
  w.field("passes", r.passes).field("every", r.every);
  w.field("occurrences_sampled", r.occurrences_sampled)
      .field("occurrences_skipped", r.occurrences_skipped);
  w.key("rows").begin_array();
  for (const GpuMetricRow& row : r.rows) {
    w.newline().begin_object().field("kind", to_string(row.kind)).field("name", row.name);
    w.field("nodes", row.nodes).field("kernels", row.kernels).key("values").begin_object();
    for (size_t i = 0; i < r.metrics.size() && i < row.values.size(); ++i)
      w.field(r.metrics[i], row.values[i]);  // not measured: null
    w.end_object().end_object();
  }
  w.end_array().end_object().newline();
}

}  // namespace

extern constinit const View kGpuMetricsView = make_view<compute, text, json>(
    "gpu-metrics",
    "GPU hardware counters per brick, kernel and scope (BRICKPROF_GPU_METRICS): L2 hit rate, "
    "DRAM bytes, occupancy, SM throughput",
    false);

}  // namespace brickprof
