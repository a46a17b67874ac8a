// The `report --critical-path` view: the path in the seed's form, the nodes
// with the most slack, and where a long path's time goes by name.
#include <cstdlib>

#include "analysis/analyses/critical_path.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxPathLines = 30;
constexpr size_t kMaxOpportunities = 10;

CriticalPathReport compute(const Trace& t, const ViewSettings&) {
  return critical_path_report(t, build_dependency_graph(t));
}

void path_line(const Trace& t, const PathStep& s, const char* mark, std::ostream& out) {
  out << mark << ' ' << printable(owner_label(t, s.node)) << " (" << format_duration(s.duration_ns)
      << ")\n";
}

void text(const Trace& t, const CriticalPathReport& r, std::ostream& out) {
  const CriticalPath& cp = r.path;
  out << "Critical Path: " << format_duration(cp.length_ns) << " (" << cp.steps.size()
      << " nodes)\n";
  out << std::string("──────────────────────────────────────────────────") << '\n';
  const size_t n = cp.steps.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > kMaxPathLines && i == kMaxPathLines / 2) {
      int64_t hidden = 0;
      for (size_t j = i; j < n - kMaxPathLines / 2; ++j) hidden += cp.steps[j].duration_ns;
      out << "│ ... " << (n - kMaxPathLines) << " more (" << format_duration(hidden) << ")\n";
      i = n - kMaxPathLines / 2 - 1;
      continue;
    }
    const char* mark = n == 1 ? "─" : i == 0 ? "┌" : i + 1 == n ? "└" : "│";
    path_line(t, cp.steps[i], mark, out);
  }
  if (!cp.parallel()) {
    out << "No cross-stream or cross-thread work: the critical path is the timeline itself.\n";
  } else {
    out << "Parallelization Opportunities (high slack):\n";
    if (r.opportunities.empty()) out << "  (none: every activity is within 1% of the path)\n";
    for (size_t i = 0; i < r.opportunities.size() && i < kMaxOpportunities; ++i) {
      const NodeSlack& s = r.opportunities[i];
      out << "  " << printable(owner_label(t, s.node)) << " slack=" << format_duration(s.slack_ns)
          << '\n';
    }
    if (r.opportunities.size() > kMaxOpportunities)
      out << "  ... " << r.opportunities.size() - kMaxOpportunities << " more (--json lists all)\n";
  }
  if (n > kMaxPathLines) {
    out << "Time on the path by name:\n";
    for (size_t i = 0; i < r.by_label.size() && i < kMaxOpportunities; ++i) {
      const PathShare& share = r.by_label[i];
      double pct = cp.length_ns
                       ? 100.0 * static_cast<double>(share.ns) / static_cast<double>(cp.length_ns)
                       : 0;
      out << "  " << printable(share.label) << ' ' << format_duration(share.ns) << " ("
          << format_fixed(pct, 1) << "%, " << share.steps << "x)\n";
    }
  }
  // The model starts GPU work as soon as it is issued; a big difference
  // from the measured span is launch latency or work the trace does not show.
  int64_t diff = cp.measured_span_ns - cp.length_ns;
  if (cp.measured_span_ns > 0 && std::llabs(diff) * 100 > cp.measured_span_ns)
    out << "Measured span: " << format_duration(cp.measured_span_ns) << " ("
        << format_duration(diff) << " not explained by the dependencies: launch latency, "
        << "unrecorded work)\n";
}

void lane_json(JsonWriter& w, const Lane& lane) {
  w.key("lane").begin_object();
  if (lane.kind == Lane::Kind::kThread) {
    w.field("thread", lane.thread);
  } else {
    w.field("device", lane.device).field("stream", lane.stream);
  }
  w.end_object();
}

void node_json(JsonWriter& w, const Trace& t, uint32_t node) {
  w.key("node");
  if (node == kNoNode)
    w.null();
  else
    w.value(t.file_id(node));
  w.field("name", owner_label(t, node));
  w.field("kind", node == kNoNode ? std::string_view("untracked") : to_string(t.nodes[node].kind));
}

void json(const Trace& t, const CriticalPathReport& r, JsonWriter& w) {
  const CriticalPath& cp = r.path;
  w.begin_object();
  w.field("length_ns", cp.length_ns).field("measured_span_ns", cp.measured_span_ns);
  w.field("start_offset_ns", cp.start_offset_ns);
  w.field("parallel", cp.parallel()).field("busy_lanes", static_cast<uint64_t>(cp.busy_lanes));
  w.field("activities", static_cast<uint64_t>(r.activities));
  w.key("steps").begin_array();
  for (const PathStep& s : cp.steps) {
    w.newline().begin_object();
    node_json(w, t, s.node);
    lane_json(w, r.lanes[s.lane]);
    w.field("duration_ns", s.duration_ns);
    w.end_object();
  }
  w.end_array();
  w.key("opportunities").begin_array();
  for (const NodeSlack& s : r.opportunities) {
    w.newline().begin_object();
    node_json(w, t, s.node);
    w.field("slack_ns", s.slack_ns).field("duration_ns", s.duration_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object().newline();
}

}  // namespace

extern constinit const View kCriticalPathView = make_view<compute, text, json>(
    "critical-path", "Critical path, slack and parallelization opportunities", false);

}  // namespace brickprof
