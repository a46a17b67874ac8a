// Replays per-thread event streams into CPU nodes (see replay.h).
#include "agent/recorder/replay.h"

#include <algorithm>
#include <iterator>
#include <queue>
#include <string>

namespace brickprof::agent {
namespace {

// Node names are interned into the trace's own table, once per site.
class NameCache {
 public:
  explicit NameCache(Trace& trace) : trace_(trace) {}
  StringId site_name(uint32_t site) {
    if (site >= by_site_.size()) by_site_.resize(site + 1, kUnset);
    StringId& id = by_site_[site];
    if (id == kUnset) id = trace_.strings.intern(Recorder::site(site).name);
    return id;
  }
  StringId layer_name(uint64_t index) {
    auto it = layers_.find(index);
    if (it != layers_.end()) return it->second;
    StringId id = trace_.strings.intern("Layer " + std::to_string(index));
    layers_.emplace(index, id);
    return id;
  }

 private:
  static constexpr StringId kUnset = UINT32_MAX;
  Trace& trace_;
  std::vector<StringId> by_site_;
  std::unordered_map<uint64_t, StringId> layers_;
};

// Builds Trace nodes and edges as the walk reads them.
class TraceBuilder {
 public:
  TraceBuilder(Trace& trace, NameCache& names, ReplayResult& result, uint32_t tid)
      : trace_(trace), names_(names), result_(result), tid_(tid) {}

  void open(uint32_t id, uint32_t parent, const Opened& o) {
    Node n;
    n.kind = o.info.kind;
    n.thread = tid_;
    n.parent = parent;
    n.start_ns = n.end_ns = o.start_ns;
    if (o.info.kind == NodeKind::kLayer) {
      n.layer_index = static_cast<int32_t>(o.arg);
      n.name = names_.layer_name(o.arg);
    } else {
      n.name = names_.site_name(o.site);
      n.elements = o.arg;
    }
    if (o.info.kind == NodeKind::kBrick) n.brick_id = o.info.brick_id;
    n.category = o.info.category;  // bricks; scopes of communication (MPI calls)
    trace_.add_node(n);            // ids are dense: `id` is the next one
    if (parent != kNoNode) trace_.add_edge(parent, id, EdgeType::kContains);
  }
  void close(uint32_t id, int64_t end_ns, bool clamp) {
    Node& n = trace_.nodes[id];
    n.end_ns = clamp ? std::max(end_ns, n.start_ns) : end_ns;
  }
  void work(uint32_t top, double flops, double bytes) {
    trace_.nodes[top].flops += flops;
    trace_.nodes[top].bytes_moved += bytes;
  }
  void launch(uint64_t correlation, uint32_t top, int64_t api_start_ns, int64_t api_end_ns,
              uint32_t python_stack) {
    result_.launches.by_correlation[correlation] =
        LaunchPoint{top, tid_, api_start_ns, api_end_ns, python_stack};
  }
  void graph_node(uint64_t graph_node_id, uint32_t top) {
    result_.launches.scope_of_graph_node[graph_node_id] = top;
  }
  void range_start(uint64_t range_id, uint64_t tsc, uint32_t site) {
    range_starts.push_back({range_id, tsc, site});
  }
  void range_end(uint64_t range_id, uint64_t tsc) { range_ends.emplace_back(range_id, tsc); }
  void consumed(const Recorder::Segment&) {}

  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;

 private:
  Trace& trace_;
  NameCache& names_;
  ReplayResult& result_;
  uint32_t tid_;
};

// The end of the closed capture window `tsc` lies in, or 0 (none, or open).
uint64_t end_of_window_at(const std::vector<capture::Window>& windows, uint64_t tsc) {
  auto after =
      std::upper_bound(windows.begin(), windows.end(), tsc,
                       [](uint64_t t, const capture::Window& w) { return t < w.start_tsc; });
  return after == windows.begin() ? 0 : std::prev(after)->end_tsc;
}

}  // namespace

std::vector<PlacedRange> place_ranges(std::vector<RangeStart>& starts, RangeEnds& ends,
                                      const Clock& clock, uint64_t end_tsc,
                                      const std::vector<capture::Window>& windows,
                                      WalkCounts& counts, uint32_t* lanes_used) {
  std::sort(starts.begin(), starts.end());
  // The last end read for each id (a map assigned in reading order).
  std::stable_sort(ends.begin(), ends.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (i + 1 < ends.size() && ends[i + 1].first == ends[i].first) continue;
    ends[kept++] = ends[i];
  }
  ends.resize(kept);
  auto find_end = [&](uint64_t id) {
    auto it = std::lower_bound(ends.begin(), ends.end(), id,
                               [](const auto& e, uint64_t v) { return e.first < v; });
    return it != ends.end() && it->first == id ? it : ends.end();
  };
  std::vector<PlacedRange> placed;
  placed.reserve(starts.size());
  using LaneEnd = std::pair<int64_t, uint32_t>;  // (busy until, lane)
  std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> lanes;
  size_t matched_ends = 0;
  for (const RangeStart& r : starts) {
    auto end = find_end(r.id);
    // Never ended: open at exit, or its capture window closed first.
    uint64_t stop_tsc = end_tsc;
    if (end != ends.end()) {
      ++matched_ends;
      stop_tsc = end->second;
    } else if (uint64_t window_end = end_of_window_at(windows, r.tsc); window_end != 0) {
      ++counts.scopes_cut_by_capture;
      stop_tsc = window_end;
    } else {
      ++counts.open_scopes_at_exit;
    }
    PlacedRange p;
    p.site = r.site;
    p.start_ns = clock.to_ns(r.tsc);
    p.end_ns = std::max(p.start_ns, clock.to_ns(stop_tsc));
    if (!lanes.empty() && lanes.top().first <= p.start_ns) {
      p.lane = lanes.top().second;
      lanes.pop();
    } else {
      p.lane = (*lanes_used)++;
    }
    lanes.push({p.end_ns, p.lane});
    placed.push_back(p);
  }
  // Ends of ranges never started: cut by a capture window, or unbalanced.
  (windows.empty() ? counts.unbalanced_pops : counts.scopes_cut_by_capture) +=
      ends.size() - matched_ends;
  return placed;
}

ReplayResult replay(const std::vector<Recorder::ThreadEvents>& threads, const Clock& clock,
                    uint64_t end_tsc, Trace& trace, const std::vector<capture::Window>& windows) {
  ReplayResult result;
  NameCache names(trace);
  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;
  for (const Recorder::ThreadEvents& te : threads) {
    TraceBuilder builder(trace, names, result, te.tid);
    ThreadWalk<TraceBuilder> walk(te, static_cast<uint32_t>(trace.nodes.size()), clock, end_tsc,
                                  windows, result);
    walk.run(builder);
    range_starts.insert(range_starts.end(), builder.range_starts.begin(),
                        builder.range_starts.end());
    range_ends.insert(range_ends.end(), builder.range_ends.begin(), builder.range_ends.end());
  }
  for (const PlacedRange& p : place_ranges(range_starts, range_ends, clock, end_tsc, windows,
                                           result, &result.range_lanes)) {
    SiteInfo info = Recorder::site(p.site);
    Node n;
    n.kind = info.kind == NodeKind::kBrick ? NodeKind::kBrick : NodeKind::kScope;
    n.name = names.site_name(p.site);
    n.brick_id = info.brick_id;
    n.category = info.category;
    n.start_ns = p.start_ns;
    n.end_ns = p.end_ns;
    n.thread = kRangeLaneBase + p.lane;
    trace.add_node(n);
  }
  return result;
}

}  // namespace brickprof::agent
