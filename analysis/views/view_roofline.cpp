// The `report --roofline` view: a table per brick and kernel, peaks and their
// source stated.
#include <cstdio>
#include <set>

#include "analysis/analyses/roofline.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxRows = 40;

// The "work from" column: where the FLOPs and bytes came from, and whether
// the GPU's counters measured the bytes.
std::string work_from(const RooflineEntry& e) {
  if (e.bytes_source == "measured") return e.work_source + ", DRAM bytes measured";
  if (e.bytes_source == "mixed") return e.work_source + ", DRAM bytes partly measured";
  return e.work_source;
}

std::string where(const RooflineEntry& e) {
  return e.gpu ? "gpu" + std::to_string(e.device) : "cpu";
}

Roofline compute(const Trace& t, const ViewSettings& settings) {
  return compute_roofline(t, settings.peaks);
}

// "CPU peak (AVX-512, measured by the program)", "GPU 0 peak (...)".
std::string heading(const Trace& t, const RooflineEntry& e) {
  return peaks_heading(t, e.gpu, e.device, e.peaks);
}

void json(const Trace& t, const Roofline& r, JsonWriter& w) {
  w.begin_object().field("unannotated_kernels", r.unannotated_kernels);
  w.key("entries").begin_array();
  for (const RooflineEntry& e : r.entries) {
    w.newline().begin_object();
    w.field("kind", e.kind == RooflineEntry::Kind::kBrick ? "brick" : "kernel");
    w.field("name", e.name).field("on", where(e)).field("count", e.count);
    w.field("time_ns", e.time_ns).field("flops", e.flops).field("bytes", e.bytes);
    w.field("work_source", e.work_source).field("bytes_source", e.bytes_source);
    w.field("intensity", e.intensity());
    w.field("gflops", e.gflops()).field("gbps", e.gbps());
    w.field("bound", e.memory_bound() ? "memory" : "compute");
    w.field("roof_gflops", e.roof_gflops()).field("efficiency", e.efficiency());
    w.field("above_roof", e.efficiency() > 1.0);
    w.field("peak_gflops", e.peaks.gflops).field("peak_gbps", e.peaks.gbps);
    w.field("peaks_source", e.peaks.source).field("peaks_label", heading(t, e)).end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace& t, const Roofline& r, std::ostream& out) {
  out << "Roofline\n";
  std::set<std::string> seen;
  for (const RooflineEntry& e : r.entries) {
    std::string line = heading(t, e) + ": " + format_rate(e.peaks.gflops * 1e9, "FLOP") + ", " +
                       format_rate(e.peaks.gbps * 1e9, "B") + ", ridge " +
                       format_fixed(e.peaks.gflops / e.peaks.gbps, 1) + " FLOP/B";
    if (std::string detail = peaks_detail(e.peaks); !detail.empty()) line += " (" + detail + ")";
    if (seen.insert(line).second) out << "  " << printable(line) << '\n';
  }
  if (r.entries.empty()) {
    out << "  no flops/bytes_moved annotations in the trace: nothing to place on the roofline\n";
    return;
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-5s %7s %10s %9s %8s %9s %8s %-7s %7s  %s\n", "on", "count",
                "time", "GFLOP", "FLOP/B", "GFLOP/s", "GB/s", "bound", "of roof", "work from");
  out << "  " << pad_right("kind", 7) << pad_right("name", 29) << buf;
  for (size_t i = 0; i < r.entries.size() && i < kMaxRows; ++i) {
    const RooflineEntry& e = r.entries[i];
    out << "  " << pad_right(e.kind == RooflineEntry::Kind::kBrick ? "brick" : "kernel", 7)
        << pad_right(clip(printable(e.name), 28), 29);
    std::snprintf(buf, sizeof buf, "%-5s %7llu %10s %9.3f %8.2f %9.1f %8.1f %-7s %6.1f%%  %s\n",
                  where(e).c_str(), static_cast<unsigned long long>(e.count),
                  format_duration(e.time_ns).c_str(), e.flops / 1e9, e.intensity(), e.gflops(),
                  e.gbps(), e.memory_bound() ? "memory" : "compute", 100.0 * e.efficiency(),
                  work_from(e).c_str());
    out << buf;
  }
  if (r.entries.size() > kMaxRows)
    out << "  ... " << r.entries.size() - kMaxRows << " more (see --json)\n";
  // Above 100% is not faster than the machine: the annotated bytes did not
  // all come from DRAM (cache-resident data) or the peaks are too low.
  const RooflineEntry* above = nullptr;
  size_t above_count = 0;
  for (const RooflineEntry& e : r.entries)
    if (e.efficiency() > 1.0 && ++above_count == 1) above = &e;
  if (above)
    out << "  " << above_count << " above 100% of the roof (" << printable(above->name) << " at "
        << format_fixed(100.0 * above->efficiency(), 1)
        << "%): its data came partly from cache, not memory, or the peaks are low\n";
  if (r.unannotated_kernels)
    out << "  " << r.unannotated_kernels
        << " kernel(s) without flops/bytes (own or their brick's)\n";
}

}  // namespace

extern const View kRooflineView =
    make_view<compute, text, json>("roofline", "Per-kernel and per-brick roofline distance", false);

}  // namespace brickprof
