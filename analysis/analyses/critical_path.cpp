// Longest path, slack and what-if re-evaluation (see critical_path.h).
#include "analysis/analyses/critical_path.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "trace/derive/stats.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

// Earliest finish of every activity; `crit` (optional) gets the predecessor
// that bound each start. Sources may not start before they were released
// (their measured start, on the model's clock: recorded_offset): a thread
// that began late did so for a reason the trace does not show.
void forward(const DependencyGraph& g, const std::vector<int64_t>& dur,
             std::vector<int64_t>& finish, std::vector<uint32_t>* crit) {
  finish.assign(g.size(), 0);
  if (crit) crit->assign(g.size(), kNoNode);
  for (uint32_t v : g.order) {
    int64_t es = 0;
    uint32_t b = g.pred_begin[v], e = g.pred_begin[v + 1];
    if (b == e) {
      es = g.recorded_offset(g.start[v]);
    } else {
      uint32_t best = g.preds[b];
      for (uint32_t k = b; k < e; ++k)
        if (finish[g.preds[k]] > finish[best]) best = g.preds[k];
      es = finish[best];
      if (crit) (*crit)[v] = best;
    }
    finish[v] = es + dur[v];
  }
}

// Nodes worth moving: positive slack of at least 1% of the path, largest first.
std::vector<NodeSlack> opportunities(const CriticalPath& cp) {
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
  std::sort(out.begin(), out.end(), by_slack);
  return out;
}

// Where the path's time goes, by label. Each owner's label is made once
// (a long path repeats a few owners; names may be megabytes long).
std::vector<PathShare> by_label(const Trace& t, const CriticalPath& cp) {
  std::unordered_map<uint32_t, size_t> slot_of_node;
  std::unordered_map<std::string_view, size_t> slot_of_label;
  std::vector<PathShare> out;
  out.reserve(cp.steps.size());  // labels are viewed in place: no reallocation
  for (const PathStep& s : cp.steps) {
    auto [node_slot, new_node] = slot_of_node.try_emplace(s.node, out.size());
    if (new_node) {
      std::string label = owner_label(t, s.node);
      auto found = slot_of_label.find(label);
      if (found != slot_of_label.end()) {
        node_slot->second = found->second;
      } else {
        out.push_back(PathShare{std::move(label), 0, 0});
        slot_of_label.emplace(out.back().label, node_slot->second);
      }
    }
    out[node_slot->second].ns += s.duration_ns;
    out[node_slot->second].steps++;
  }
  std::sort(out.begin(), out.end(), [](const PathShare& a, const PathShare& b) {
    return a.ns != b.ns ? a.ns > b.ns : a.label < b.label;
  });
  return out;
}

}  // namespace

std::string owner_label(const Trace& trace, uint32_t owner) {
  return owner == kNoNode ? "(untracked CPU time)" : node_label(trace, trace.nodes[owner]);
}

CriticalPathReport critical_path_report(const Trace& trace, const DependencyGraph& graph) {
  CriticalPathReport r;
  r.path = compute_critical_path(trace, graph);
  // Per activity it means nothing without the graph, which is not kept;
  // per node it is in path.nodes.
  r.path.slack = {};
  r.lanes = graph.lanes;
  r.activities = graph.size();
  r.opportunities = opportunities(r.path);
  r.by_label = by_label(trace, r.path);
  return r;
}

int64_t evaluate_length(const DependencyGraph& g, const std::vector<int64_t>& durations) {
  std::vector<int64_t> finish;
  forward(g, durations, finish, nullptr);
  int64_t length = 0;
  for (int64_t f : finish) length = std::max(length, f);
  return length;
}

CriticalPath compute_critical_path(const Trace& trace, const DependencyGraph& g) {
  CriticalPath cp;
  cp.measured_span_ns = g.measured_span();
  const size_t n = g.size();
  if (n == 0) return cp;
  std::vector<int64_t> finish;
  std::vector<uint32_t> crit;
  forward(g, g.duration, finish, &crit);
  uint32_t sink = 0;
  for (uint32_t v = 0; v < n; ++v)
    if (finish[v] > finish[sink] || (finish[v] == finish[sink] && g.duration[v] > g.duration[sink]))
      sink = v;
  cp.length_ns = finish[sink];

  // Backward pass: latest finish, relaxed from successors to predecessors.
  std::vector<int64_t>& latest = cp.slack;
  latest.assign(n, cp.length_ns);
  for (size_t i = n; i-- > 0;) {
    uint32_t v = g.order[i];
    int64_t latest_start = latest[v] - g.duration[v];
    for (uint32_t k = g.pred_begin[v]; k < g.pred_begin[v + 1]; ++k)
      latest[g.preds[k]] = std::min(latest[g.preds[k]], latest_start);
  }
  for (uint32_t v = 0; v < n; ++v) latest[v] -= finish[v];  // now slack

  // The path, back from the sink, then merged into steps by owner.
  std::vector<uint32_t> path;
  for (uint32_t v = sink; v != kNoNode; v = crit[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  cp.start_offset_ns = finish[path.front()] - g.duration[path.front()];
  for (uint32_t v : path) {
    if (g.duration[v] == 0 && g.owner[v] != kNoNode &&
        trace.nodes[g.owner[v]].kind == NodeKind::kSync)
      continue;  // zero-time markers (event records, stream waits) add nothing
    if (!cp.steps.empty() && cp.steps.back().node == g.owner[v] &&
        cp.steps.back().lane == g.lane[v]) {
      cp.steps.back().duration_ns += g.duration[v];
    } else {
      cp.steps.push_back(PathStep{g.owner[v], g.lane[v], g.duration[v]});
    }
  }
  // Drop empty steps (zero-length pieces) unless the path is nothing else.
  std::erase_if(cp.steps,
                [&](const PathStep& s) { return s.duration_ns == 0 && cp.steps.size() > 1; });

  // Per node: least slack over its activities. Reserved: millions of owners
  // would otherwise be copied at every regrowth.
  std::vector<uint32_t> slot(trace.nodes.size(), kNoNode);
  std::vector<uint8_t> busy(g.lanes.size(), 0);
  cp.nodes.reserve(std::min(trace.nodes.size(), n));
  for (uint32_t v = 0; v < n; ++v) {
    if (g.duration[v] > 0) busy[g.lane[v]] = 1;
    uint32_t node = g.owner[v];
    if (node == kNoNode) continue;
    if (slot[node] == kNoNode) {
      slot[node] = static_cast<uint32_t>(cp.nodes.size());
      cp.nodes.push_back(NodeSlack{node, cp.slack[v], 0});
    }
    NodeSlack& s = cp.nodes[slot[node]];
    s.slack_ns = std::min(s.slack_ns, cp.slack[v]);
    s.duration_ns += g.duration[v];
  }
  for (uint8_t b : busy) cp.busy_lanes += b;
  return cp;
}

WhatIf what_if(const Trace& trace, const DependencyGraph& g, std::string_view target,
               double factor) {
  WhatIf w;
  w.target = std::string(target);
  w.factor = factor;
  w.before_ns = evaluate_length(g, g.duration);
  std::vector<uint32_t> brick = nearest_brick(trace);
  std::vector<uint8_t> match(trace.nodes.size(), 0);
  for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
    if (trace.name(trace.nodes[i]) == target)
      match[i] = 1;
    else if (brick[i] != kNoNode && trace.name(trace.nodes[brick[i]]) == target)
      match[i] = 1;
  }
  std::vector<int64_t> dur = g.duration;
  for (size_t v = 0; v < g.size(); ++v) {
    if (g.owner[v] == kNoNode || !match[g.owner[v]]) continue;
    dur[v] = static_cast<int64_t>(std::llround(static_cast<double>(dur[v]) / factor));
    ++w.matched_activities;
  }
  w.after_ns = evaluate_length(g, dur);
  return w;
}

}  // namespace brickprof
