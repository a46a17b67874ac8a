// The `report --summary` view: the per-brick table (Brick, Count, Avg,
// Total, GPU, elem/s), the category breakdown, and every diagnostic the
// recorder counted, so nothing is lost silently.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/json/json_writer.h"
#include "analysis/model/format.h"
#include "analysis/model/queries.h"
#include "analysis/model/stats.h"
#include "analysis/views/views.h"

namespace brickprof {
namespace {

std::string percent(double pct) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, "%.1f%%", pct);
  return tmp;
}

void header(std::ostream& out, const Trace& t, const TraceSummary& s) {
  const ProcessInfo& p = t.process;
  out << "Trace: " << (p.program.empty() ? "?" : p.program) << " (pid " << p.pid;
  if (!p.host.empty()) out << " on " << p.host;
  if (p.rank >= 0) out << ", rank " << p.rank;
  out << "), " << format_duration(p.end_ns - p.start_ns) << ", " << s.nodes << " nodes, "
      << s.kernels << " kernels\n";
  if (t.sources.empty()) return;
  // A merged trace: its process is only the first source, so name them all.
  out << "Merged from " << t.sources.size() << " processes:";
  for (size_t i = 0; i < t.sources.size(); ++i) {
    const SourceInfo& s = t.sources[i];
    out << (i ? ", " : " ") << s.label << " (pid " << s.process.pid;
    if (!s.process.host.empty()) out << " on " << s.process.host;
    out << ")";
  }
  out << "\n";
  // Ranks merge moved onto the reference rank's clock, and by how much.
  bool aligned = false;
  for (const SourceInfo& s : t.sources) {
    if (!s.alignment.applied) continue;
    out << (aligned ? ", " : "Clocks aligned to rank 0: ") << s.label << " "
        << (s.alignment.offset_ns < 0 ? "-" : "+")
        << format_duration(static_cast<int64_t>(std::abs(s.alignment.offset_ns))) << ", drift "
        << format_fixed(s.alignment.drift * 1e6, 2) << " ppm";
    aligned = true;
  }
  if (aligned) out << "\n";
}

void brick_table(std::ostream& out, const TraceStats& s) {
  size_t name_width = 5;
  for (const BrickStat& b : s.bricks) name_width = std::max(name_width, b.name.size());
  out << "\nPer-brick timing:\n"
      << pad_right("Brick", name_width) << pad_left("Count", 9) << pad_left("Avg", 11)
      << pad_left("Total", 11) << pad_left("GPU", 11) << pad_left("elem/s", 11) << "\n"
      << std::string(name_width + 53, '-') << "\n";
  if (s.bricks.empty()) out << "(no bricks)\n";
  for (const BrickStat& b : s.bricks) {
    out << pad_right(b.name, name_width) << pad_left(std::to_string(b.count), 9)
        << pad_left(format_duration(b.avg_ns()), 11) << pad_left(format_duration(b.total_ns), 11)
        << pad_left(format_duration(b.gpu_ns), 11) << pad_left(format_rate(b.throughput()), 11)
        << "\n";
  }
}

void category_table(std::ostream& out, const TraceStats& s) {
  out << "\nCategory breakdown:\n"
      << pad_right("Category", 10) << pad_left("Total", 11) << pad_left("Pct", 8)
      << pad_left("Samples", 9) << "\n"
      << std::string(38, '-') << "\n";
  for (const CategoryStat& c : s.categories) {
    out << pad_right(std::string(to_string(c.category)), 10)
        << pad_left(format_duration(c.total_ns), 11) << pad_left(percent(c.pct), 8)
        << pad_left(std::to_string(c.count), 9) << "\n";
  }
}

void diagnostics(std::ostream& out, const Trace& t, const TraceSummary& s) {
  const Diagnostics& d = t.diagnostics;
  out << "\nDiagnostics:\n"
      << "  cupti: " << d.cupti << "\n"
      << "  nvtx: " << d.nvtx << "\n"
      << "  dropped events: " << d.dropped_events << "\n"
      << "  dropped activity records: " << d.dropped_activity_records << "\n"
      << "  zero-timestamp records: " << d.zero_timestamp_records << "\n"
      << "  unbalanced pops: " << d.unbalanced_pops << "\n"
      << "  scopes open at exit: " << d.open_scopes_at_exit << "\n";
  if (d.capture != "all")
    out << "  capture: " << d.capture << "\n"
        << "  scopes cut by the capture windows: " << d.scopes_cut_by_capture << "\n"
        << "  GPU records launched outside them (left out): " << d.records_outside_capture << "\n";
  out << "  scope balance: " << (s.scope_balanced ? "ok" : "UNBALANCED") << "\n";
  for (std::string w : d.warnings) {
    std::replace(w.begin(), w.end(), '\n', ' ');  // one line per warning
    out << "  warning: " << w << "\n";
  }
}

// The brick and category tables as JSON. The trace file's derived
// `bricks`/`categories` (analysis/json/trace_json_write.cpp) carry the same
// figures for scripts that read the trace itself, in another order and
// with the categories' count named "count" where this view says "samples"
// (its text column); both stay as they are for the scripts that read them.
void stats_json(JsonWriter& w, const TraceStats& stats) {
  w.key("bricks").begin_array();
  for (const BrickStat& b : stats.bricks) {
    w.newline().begin_object();
    w.field("name", b.name).field("category", to_string(b.category)).field("count", b.count);
    w.field("avg_ns", b.avg_ns()).field("total_ns", b.total_ns).field("min_ns", b.min_ns);
    w.field("max_ns", b.max_ns).field("gpu_ns", b.gpu_ns).field("kernels", b.kernels);
    w.field("elements", b.elements).field("elements_per_s", b.throughput());
    w.end_object();
  }
  w.end_array();
  w.key("categories").begin_array();
  for (const CategoryStat& c : stats.categories) {
    w.newline().begin_object();
    w.field("name", to_string(c.category)).field("total_ns", c.total_ns);
    w.field("pct", c.pct).field("samples", c.count);
    w.end_object();
  }
  w.end_array();
}

TraceSummary compute(const Trace& trace, const ViewSettings&) { return summarize_trace(trace); }

void text(const Trace& trace, const TraceSummary& s, std::ostream& out) {
  header(out, trace, s);
  if (const auto& slow = s.slowest_kernel) {
    out << "Slowest kernel: " << trace.name(trace.nodes[slow->kernel]) << " "
        << format_duration(slow->gpu_ns);
    if (slow->brick != kNoNode) out << " in " << node_label(trace, trace.nodes[slow->brick]);
    out << "\n";
  }
  brick_table(out, s.stats);
  category_table(out, s.stats);
  if (s.nested_bricks)
    out << "(bricks nest: a nested brick's time is also in the brick around it, so it counts "
           "twice here)\n";
  diagnostics(out, trace, s);
}

void json(const Trace& trace, const TraceSummary& s, JsonWriter& w) {
  const ProcessInfo& p = trace.process;
  w.begin_object();
  w.key("process").begin_object();
  w.field("program", p.program).field("pid", p.pid).field("host", p.host).field("rank", p.rank);
  w.field("duration_ns", p.end_ns - p.start_ns);
  w.end_object();
  if (!trace.sources.empty()) {
    w.key("sources").begin_array();
    for (const SourceInfo& src : trace.sources) {
      w.begin_object().field("label", src.label).field("program", src.process.program);
      w.field("pid", src.process.pid).field("host", src.process.host);
      w.field("rank", src.process.rank).end_object();
    }
    w.end_array();
  }
  w.field("nodes", s.nodes);
  w.field("kernels", s.kernels);
  w.key("slowest_kernel");
  if (const auto& slow = s.slowest_kernel) {
    w.begin_object().field("node", trace.file_id(slow->kernel));
    w.field("name", trace.name(trace.nodes[slow->kernel])).field("gpu_ns", slow->gpu_ns);
    w.key("brick");
    if (slow->brick != kNoNode)
      w.value(node_label(trace, trace.nodes[slow->brick]));
    else
      w.null();
    w.end_object();
  } else {
    w.null();
  }
  stats_json(w, s.stats);
  const Diagnostics& d = trace.diagnostics;
  w.key("diagnostics").begin_object();
  w.field("cupti", d.cupti).field("nvtx", d.nvtx).field("dropped_events", d.dropped_events);
  w.field("dropped_activity_records", d.dropped_activity_records);
  w.field("zero_timestamp_records", d.zero_timestamp_records);
  w.field("unbalanced_pops", d.unbalanced_pops).field("open_scopes_at_exit", d.open_scopes_at_exit);
  w.field("capture", d.capture).field("scopes_cut_by_capture", d.scopes_cut_by_capture);
  w.field("records_outside_capture", d.records_outside_capture);
  w.field("scope_balanced", s.scope_balanced);
  w.key("warnings").begin_array();
  for (const std::string& warning : d.warnings) w.value(warning);
  w.end_array();
  w.end_object();
  w.end_object();
}

}  // namespace

extern constinit const View kSummaryView = make_view<compute, text, json>(
    "summary", "Per-brick and per-category tables, and diagnostics", true);

}  // namespace brickprof
