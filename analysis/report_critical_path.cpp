// Critical-path and what-if views (text in the seed's form, and JSON).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "analysis/critical_path.h"
#include "analysis/format.h"
#include "analysis/json_writer.h"
#include "analysis/report_labels.h"
#include "analysis/report_views.h"

namespace brickprof {
namespace {

constexpr size_t kMaxPathLines = 30;
constexpr size_t kMaxOpportunities = 10;

// Nodes worth moving: positive slack of at least 1% of the path, largest first.
std::vector<NodeSlack> opportunities(const CriticalPath& cp, size_t limit) {
  std::vector<NodeSlack> out;
  if (!cp.parallel()) return out;
  int64_t floor = std::max<int64_t>(1, cp.length_ns / 100);
  for (const NodeSlack& s : cp.nodes)
    if (s.slack_ns >= floor && s.duration_ns > 0) out.push_back(s);
  auto by_slack = [](const NodeSlack& a, const NodeSlack& b) {
    if (a.slack_ns != b.slack_ns) return a.slack_ns > b.slack_ns;
    if (a.duration_ns != b.duration_ns) return a.duration_ns > b.duration_ns;
    return a.node < b.node;
  };
  if (out.size() > limit) {
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(limit), out.end(),
                      by_slack);
    out.resize(limit);
  } else {
    std::sort(out.begin(), out.end(), by_slack);
  }
  return out;
}

void path_line(const Trace& t, const PathStep& s, const char* mark, std::ostream& out) {
  out << mark << ' ' << node_label(t, s.node) << " (" << format_duration(s.duration_ns) << ")\n";
}

// Where the path's time goes, by name, when the path is too long to list.
void top_contributors(const Trace& t, const CriticalPath& cp, std::ostream& out) {
  std::unordered_map<std::string, std::pair<int64_t, uint64_t>> by_name;
  for (const PathStep& s : cp.steps) {
    auto& e = by_name[node_label(t, s.node)];
    e.first += s.duration_ns;
    e.second++;
  }
  std::vector<std::pair<std::string, std::pair<int64_t, uint64_t>>> list(by_name.begin(),
                                                                          by_name.end());
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a.second.first != b.second.first ? a.second.first > b.second.first : a.first < b.first;
  });
  out << "Time on the path by name:\n";
  for (size_t i = 0; i < list.size() && i < kMaxOpportunities; ++i) {
    double pct = cp.length_ns ? 100.0 * static_cast<double>(list[i].second.first) /
                                    static_cast<double>(cp.length_ns)
                              : 0;
    out << "  " << list[i].first << ' ' << format_duration(list[i].second.first) << " ("
        << format_fixed(pct, 1) << "%, " << list[i].second.second << "x)\n";
  }
}

void render_text(const Trace& t, const CriticalPath& cp, std::ostream& out) {
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
    std::vector<NodeSlack> ops = opportunities(cp, kMaxOpportunities);
    if (ops.empty()) out << "  (none: every activity is within 1% of the path)\n";
    for (const NodeSlack& s : ops)
      out << "  " << node_label(t, s.node) << " slack=" << format_duration(s.slack_ns) << '\n';
  }
  if (n > kMaxPathLines) top_contributors(t, cp, out);
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
  if (node == kNoNode) w.null(); else w.value(node);
  w.field("name", node_label(t, node));
  w.field("kind", node == kNoNode ? std::string_view("untracked") : to_string(t.nodes[node].kind));
}

void render_json(const Trace& t, const DependencyGraph& g, const CriticalPath& cp,
                 std::ostream& out) {
  JsonWriter w(out);
  w.begin_object();
  w.field("length_ns", cp.length_ns).field("measured_span_ns", cp.measured_span_ns);
  w.field("start_offset_ns", cp.start_offset_ns);
  w.field("parallel", cp.parallel()).field("busy_lanes", static_cast<uint64_t>(cp.busy_lanes));
  w.field("activities", static_cast<uint64_t>(g.size()));
  w.key("steps").begin_array();
  for (const PathStep& s : cp.steps) {
    w.newline().begin_object();
    node_json(w, t, s.node);
    lane_json(w, g.lanes[s.lane]);
    w.field("duration_ns", s.duration_ns);
    w.end_object();
  }
  w.end_array();
  w.key("opportunities").begin_array();
  for (const NodeSlack& s : opportunities(cp, 100)) {
    w.newline().begin_object();
    node_json(w, t, s.node);
    w.field("slack_ns", s.slack_ns).field("duration_ns", s.duration_ns);
    w.end_object();
  }
  w.end_array();
  w.end_object().newline();
}

}  // namespace

void render_critical_path(const Trace& t, const DependencyGraph& g, std::ostream& out, bool json) {
  CriticalPath cp = compute_critical_path(t, g);
  if (json) render_json(t, g, cp, out); else render_text(t, cp, out);
}

void render_critical_path(const Trace& t, std::ostream& out, bool json) {
  render_critical_path(t, build_dependency_graph(t), out, json);
}

WhatIfSpec parse_what_if_spec(std::string_view spec) {
  size_t eq = spec.rfind('=');
  if (eq == std::string_view::npos || eq == 0)
    throw ViewError("--what-if expects NAME=K (e.g. RmsNorm=2), got '" + std::string(spec) + "'");
  std::string_view name = spec.substr(0, eq), k = spec.substr(eq + 1);
  if (!k.empty() && (k.back() == 'x' || k.back() == 'X')) k.remove_suffix(1);
  double factor = 0;
  auto [ptr, ec] = std::from_chars(k.data(), k.data() + k.size(), factor);
  if (ec != std::errc() || ptr != k.data() + k.size() || !(factor > 0) || !std::isfinite(factor))
    throw ViewError("--what-if " + std::string(spec) + ": K must be a positive number");
  return {std::string(name), factor};
}

void render_what_if(const Trace& t, const DependencyGraph& g, std::string_view spec,
                    std::ostream& out, bool json) {
  const auto [name, factor] = parse_what_if_spec(spec);
  WhatIf r = what_if(t, g, name, factor);
  double pct = r.before_ns
                   ? 100.0 * static_cast<double>(r.saved_ns()) / static_cast<double>(r.before_ns)
                   : 0;
  if (json) {
    JsonWriter w(out);
    w.begin_object().field("target", r.target).field("factor", r.factor);
    w.field("matched_activities", static_cast<uint64_t>(r.matched_activities));
    w.field("before_ns", r.before_ns).field("after_ns", r.after_ns);
    w.field("saved_ns", r.saved_ns()).field("saved_pct", pct).end_object().newline();
    return;
  }
  if (r.matched_activities == 0) {
    out << "What-if: no brick, scope or kernel named '" << r.target << "' in the trace\n";
    return;
  }
  out << "What-if: " << r.target << ' '
      << format_fixed(factor, factor == std::floor(factor) ? 0 : 2)
      << "x faster shortens the run by " << format_duration(r.saved_ns()) << " ("
      << format_fixed(pct, 1) << "%): " << format_duration(r.before_ns) << " -> "
      << format_duration(r.after_ns) << '\n';
}

}  // namespace brickprof
