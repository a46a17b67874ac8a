// The `report --summary` view: what was recorded (or that nothing was, and
// why there is no GPU column), the per-brick table (Brick, Count, Avg,
// Total, GPU, elem/s), the category breakdown, and every diagnostic the
// recorder counted that is not zero, so nothing is lost silently.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyses/tokens.h"
#include "analysis/views/views.h"
#include "trace/derive/stats.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"
#include "trace/model/recorded.h"

namespace brickprof {
namespace {

std::string percent(double pct) {
  char tmp[32];
  std::snprintf(tmp, sizeof tmp, "%.1f%%", pct);
  return tmp;
}

void header(std::ostream& out, const Trace& t, const TraceSummary& s) {
  const ProcessInfo& p = t.process;
  out << "Trace: " << (p.program.empty() ? "?" : printable(p.program)) << " (pid " << p.pid;
  if (!p.host.empty()) out << " on " << printable(p.host);
  if (p.rank >= 0) out << ", rank " << p.rank;
  out << "), " << format_duration(p.end_ns - p.start_ns);
  if (recorded_nothing(t))
    out << ", nothing recorded\n";
  else if (s.kernels || has_gpu_work(t))
    out << ", " << s.nodes << " nodes (each a recorded scope or GPU operation), " << s.kernels
        << " kernels\n";
  else
    out << ", " << s.nodes << " nodes (each a recorded scope)\n";
  if (!t.sources.empty()) {
    // A merged trace: its process is only the first source, so name them all.
    out << "Merged from " << t.sources.size() << " processes:";
    for (size_t i = 0; i < t.sources.size(); ++i) {
      const SourceInfo& src = t.sources[i];
      out << (i ? ", " : " ") << printable(src.label) << " (pid " << src.process.pid;
      if (!src.process.host.empty()) out << " on " << printable(src.process.host);
      out << ")";
    }
    out << "\n";
    // Ranks merge moved onto the reference rank's clock, and by how much.
    bool aligned = false;
    for (const SourceInfo& src : t.sources) {
      if (!src.alignment.applied) continue;
      out << (aligned ? ", " : "Clocks aligned to rank 0: ") << printable(src.label) << " "
          << (src.alignment.offset_ns < 0 ? "-" : "+")
          << format_duration(static_cast<int64_t>(std::abs(src.alignment.offset_ns))) << ", drift "
          << format_fixed(src.alignment.drift * 1e6, 2) << " ppm";
      aligned = true;
    }
    if (aligned) out << "\n";
  }
  if (recorded_nothing(t)) out << printable(nothing_recorded_line(t)) << "\n";
  // One line on the GPU: how it was recorded, or why there is nothing from it.
  if (std::string line = no_gpu_line(t); !line.empty())
    out << printable(line) << "\n";
  else
    out << "GPU: CUPTI " << printable(t.diagnostics.cupti) << "\n";
  if (t.diagnostics.checksum_mode.starts_with("none"))
    out << "Checksum mode: " << printable(t.diagnostics.checksum_mode) << "\n";
  else if (t.diagnostics.checksum_mode != "off")
    out << "Warning: recorded in checksum mode (" << printable(t.diagnostics.checksum_mode)
        << "): each launch was synchronised and its outputs digested, so times are perturbed; "
           "profile without --checksums for timing\n";
  if (t.diagnostics.cpu_counters != "off")  // asked for: what was counted, or why nothing
    out << "CPU counters: " << printable(t.diagnostics.cpu_counters) << "\n";
  if (t.diagnostics.gpu_metrics != "off")
    out << "GPU metrics: " << printable(t.diagnostics.gpu_metrics) << "\n";
}

// The GPU column only where there is GPU work: a CPU-only run's would be
// 0ns on every row.
void brick_table(std::ostream& out, const TraceStats& s, bool gpu) {
  out << "\nPer-brick timing (bricks: the steps of a layer the program marked):\n";
  if (s.bricks.empty()) {
    out << "(no bricks: BRICKPROF_BRICK, brickprof.brick() or an NVTX range named like one marks "
           "them)\n";
    return;
  }
  std::vector<std::string> names;
  size_t name_width = 5;
  for (const BrickStat& b : s.bricks) {
    names.push_back(printable(b.name));
    name_width = std::max(name_width, names.back().size());
  }
  const size_t width = name_width + (gpu ? 53 : 42);
  out << pad_right("Brick", name_width) << pad_left("Count", 9) << pad_left("Avg", 11)
      << pad_left("Total", 11) << (gpu ? pad_left("GPU", 11) : "") << pad_left("elem/s", 11) << "\n"
      << std::string(width, '-') << "\n";
  for (size_t i = 0; i < s.bricks.size(); ++i) {
    const BrickStat& b = s.bricks[i];
    out << pad_right(names[i], name_width) << pad_left(std::to_string(b.count), 9)
        << pad_left(format_duration(b.avg_ns()), 11) << pad_left(format_duration(b.total_ns), 11)
        << (gpu ? pad_left(format_duration(b.gpu_ns), 11) : "")
        << pad_left(format_rate(b.throughput()), 11) << "\n";
  }
  out << "(elem/s: the elements a brick declared, per second of its time";
  if (gpu) out << "; GPU: its GPU work's time";
  out << ")\n";
}

void category_table(std::ostream& out, const TraceStats& s) {
  if (s.bricks.empty()) return;  // every category 0ns says nothing
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

// What the recorder counted, so nothing is lost silently: every count that
// is not zero and every status worth reading, or one line saying all is
// well. (--json and the trace keep every figure.)
void diagnostics(std::ostream& out, const Trace& t, const TraceSummary& s) {
  const Diagnostics& d = t.diagnostics;
  std::ostringstream lines;
  if (d.nvtx.rfind("unavailable", 0) == 0) lines << "  nvtx: " << printable(d.nvtx) << "\n";
  auto count = [&](const char* what, uint64_t n) {
    if (n) lines << "  " << what << ": " << n << "\n";
  };
  count("dropped events", d.dropped_events);
  count("scope API calls with arguments left out", d.ignored_api_calls);
  count("dropped activity records", d.dropped_activity_records);
  count("zero-timestamp records", d.zero_timestamp_records);
  count("unbalanced pops", d.unbalanced_pops);
  count("scopes open at exit", d.open_scopes_at_exit);
  if (d.capture != "all")
    lines << "  capture: " << printable(d.capture) << "\n"
          << "  scopes cut by the capture windows: " << d.scopes_cut_by_capture << "\n"
          << "  GPU records launched outside them (left out): " << d.records_outside_capture
          << "\n";
  if (!s.scope_balanced) lines << "  scope balance: UNBALANCED\n";
  for (const std::string& w : d.warnings) lines << "  warning: " << printable(w) << "\n";
  const std::string text = lines.str();
  if (text.empty())
    out << "\nDiagnostics: nothing dropped, scopes balanced\n";
  else
    out << "\nDiagnostics:\n" << text;
}

// The brick and category tables as JSON. The trace file's derived
// `bricks`/`categories` (trace/json/trace_json_write.cpp) carry the same
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

TraceSummary compute(const Trace& trace, const ViewSettings& settings) {
  TraceSummary s = summarize_trace(trace);
  if (!settings.whole_trace) s.outside_scopes_ns = -1;  // under a scope name: not the run's
  return s;
}

void text(const Trace& trace, const TraceSummary& s, std::ostream& out) {
  header(out, trace, s);
  if (!recorded_nothing(trace)) {
    if (const auto& slow = s.slowest_kernel) {
      out << "Slowest kernel: " << printable(trace.name(trace.nodes[slow->kernel])) << " "
          << format_duration(slow->gpu_ns);
      if (slow->brick != kNoNode)
        out << " in " << printable(node_label(trace, trace.nodes[slow->brick]));
      out << "\n";
    }
    if (const TokenFigures tokens = token_figures(trace); tokens.reports > 0)
      tokens_line(tokens, out);
    brick_table(out, s.stats, has_gpu_work(trace));
    category_table(out, s.stats);
    if (s.nested_bricks)
      out << "(bricks nest: a nested brick's time is also in the brick around it, so it counts "
             "twice here)\n";
  }
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
  // What every front end says about the run as a whole: nothing recorded,
  // no GPU work, the time outside every scope (null when there is none).
  w.key("nothing_recorded");
  if (recorded_nothing(trace))
    w.value(nothing_recorded_line(trace));
  else
    w.null();
  w.key("no_gpu");
  if (std::string line = no_gpu_line(trace); !line.empty())
    w.value(line);
  else
    w.null();
  w.key("outside_scopes_ns");
  if (s.outside_scopes_ns >= 0)
    w.value(s.outside_scopes_ns);
  else
    w.null();
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
  w.key("tokens");
  if (const TokenFigures tokens = token_figures(trace); tokens.reports > 0)
    tokens_json(tokens, w);
  else
    w.null();
  stats_json(w, s.stats);
  const Diagnostics& d = trace.diagnostics;
  w.key("diagnostics").begin_object();
  w.field("cupti", d.cupti).field("nvtx", d.nvtx).field("dropped_events", d.dropped_events);
  if (d.cpu_counters != "off") w.field("cpu_counters", d.cpu_counters);
  if (d.gpu_metrics != "off") w.field("gpu_metrics", d.gpu_metrics);
  w.field("dropped_activity_records", d.dropped_activity_records);
  w.field("zero_timestamp_records", d.zero_timestamp_records);
  w.field("unbalanced_pops", d.unbalanced_pops).field("open_scopes_at_exit", d.open_scopes_at_exit);
  w.field("capture", d.capture).field("scopes_cut_by_capture", d.scopes_cut_by_capture);
  w.field("records_outside_capture", d.records_outside_capture);
  if (d.checksum_mode != "off") w.field("checksum_mode", d.checksum_mode);  // times perturbed
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
