// Replays per-thread event streams into CPU nodes (see replay.h).
#include "agent/replay.h"

#include <algorithm>
#include <iterator>
#include <cstring>
#include <queue>
#include <string>
#include <unordered_map>

namespace brickprof::agent {
namespace {

double double_of(uint64_t bits) {
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// Node names are interned into the trace's own table, once per site.
class NameCache {
 public:
  explicit NameCache(Trace& trace) : trace_(trace) {}
  StringId site_name(const SiteInfo& info) {
    auto it = by_recorder_id_.find(info.name);
    if (it != by_recorder_id_.end()) return it->second;
    StringId id = trace_.strings.intern(Recorder::name(info.name));
    by_recorder_id_.emplace(info.name, id);
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
  Trace& trace_;
  std::unordered_map<StringId, StringId> by_recorder_id_;
  std::unordered_map<uint64_t, StringId> layers_;
};

struct RangeStart {
  uint64_t id;
  uint64_t tsc;
  uint32_t site;
  bool operator<(const RangeStart& o) const { return tsc < o.tsc; }
};

// Start/end ranges become root nodes, each on the first range lane free at
// its start (interval partitioning: as few lanes as ranges ever overlap).
// The end of the closed capture window `tsc` lies in, or 0 (none, or open).
uint64_t end_of_window_at(const std::vector<capture::Window>& windows, uint64_t tsc) {
  auto after = std::upper_bound(windows.begin(), windows.end(), tsc,
                                [](uint64_t t, const capture::Window& w) { return t < w.start_tsc; });
  return after == windows.begin() ? 0 : std::prev(after)->end_tsc;
}

void place_ranges(std::vector<RangeStart>& starts,
                  const std::unordered_map<uint64_t, uint64_t>& ends, const Clock& clock,
                  uint64_t end_tsc, const std::vector<capture::Window>& windows,
                  NameCache& names, Trace& trace, ReplayResult& result) {
  std::sort(starts.begin(), starts.end());
  using LaneEnd = std::pair<int64_t, uint32_t>;  // (busy until, lane)
  std::priority_queue<LaneEnd, std::vector<LaneEnd>, std::greater<LaneEnd>> lanes;
  size_t matched_ends = 0;
  for (const RangeStart& r : starts) {
    auto end = ends.find(r.id);
    // Never ended: open at exit, or its capture window closed first.
    uint64_t stop_tsc = end_tsc;
    if (end != ends.end()) {
      ++matched_ends;
      stop_tsc = end->second;
    } else if (uint64_t window_end = end_of_window_at(windows, r.tsc); window_end != 0) {
      ++result.scopes_cut_by_capture;
      stop_tsc = window_end;
    } else {
      ++result.open_scopes_at_exit;
    }
    SiteInfo info = Recorder::site(r.site);
    Node n;
    n.kind = info.kind == NodeKind::kBrick ? NodeKind::kBrick : NodeKind::kScope;
    n.name = names.site_name(info);
    n.brick_id = info.brick_id;
    n.category = info.category;
    n.start_ns = clock.to_ns(r.tsc);
    n.end_ns = std::max(n.start_ns, clock.to_ns(stop_tsc));
    uint32_t lane;
    if (!lanes.empty() && lanes.top().first <= n.start_ns) {
      lane = lanes.top().second;
      lanes.pop();
    } else {
      lane = result.range_lanes++;
    }
    lanes.push({n.end_ns, lane});
    n.thread = kRangeLaneBase + lane;
    trace.add_node(n);
  }
  // Ends of ranges never started: cut by a capture window, or unbalanced.
  (windows.empty() ? result.unbalanced_pops : result.scopes_cut_by_capture) +=
      ends.size() - matched_ends;
}

// Ends every open scope at `close_ns` (never before its start).
void close_all(std::vector<uint32_t>& open, int64_t close_ns, Trace& trace) {
  for (uint32_t id : open) trace.nodes[id].end_ns = std::max(close_ns, trace.nodes[id].start_ns);
  open.clear();
}

}  // namespace

ReplayResult replay(const std::vector<Recorder::ThreadEvents>& threads, const Clock& clock,
                    uint64_t end_tsc, Trace& trace, const std::vector<capture::Window>& windows) {
  ReplayResult result;
  const bool windowed = !windows.empty();
  NameCache names(trace);
  std::vector<uint32_t> open;
  std::vector<RangeStart> range_starts;
  std::unordered_map<uint64_t, uint64_t> range_ends;  // id -> tsc
  for (const Recorder::ThreadEvents& te : threads) {
    open.clear();
    uint64_t last_tsc = 0;
    size_t started = 0;  // windows opened at or before the current event
    size_t pops_of_cut = 0;  // pops still to come of scopes ended at a window's edge
    for (size_t c = 0; c < te.chunks.size(); ++c) {
      const uint64_t* end = te.chunks[c] + te.counts[c];
      for (const uint64_t* w = te.chunks[c]; w < end;) {
        // Only the record's own words are read (Event is a view).
        const Event& e = *reinterpret_cast<const Event*>(w);
        w += e.words();
        last_tsc = e.type() == EventType::kCudaApi ? e.b : e.tsc;
        if (windowed) {
          // By the call's end for CUDA calls: one that began before a
          // window opened was recorded because it returned inside it.
          size_t before = started;
          while (started < windows.size() && windows[started].start_tsc <= last_tsc) ++started;
          if (started != before && before > 0 && !open.empty()) {
            // Open when window `before - 1` closed: they end there.
            result.scopes_cut_by_capture += open.size();
            pops_of_cut += open.size();
            close_all(open, clock.to_ns(windows[before - 1].end_tsc), trace);
          }
        }
        uint32_t top = open.empty() ? kNoNode : open.back();
        switch (e.type()) {
          case EventType::kPush:
          case EventType::kMark: {
            SiteInfo info = Recorder::site(e.site());
            Node n;
            n.kind = info.kind;
            n.thread = te.tid;
            n.parent = top;
            n.start_ns = n.end_ns = clock.to_ns(e.tsc);
            if (info.kind == NodeKind::kLayer) {
              n.layer_index = static_cast<int32_t>(e.a);
              n.name = names.layer_name(e.a);
            } else {
              n.name = names.site_name(info);
              n.elements = e.type() == EventType::kPush ? e.a : 0;
            }
            if (info.kind == NodeKind::kBrick) n.brick_id = info.brick_id;
            n.category = info.category;  // bricks; scopes of communication (MPI calls)
            uint32_t id = trace.add_node(n);
            if (top != kNoNode) trace.add_edge(top, id, EdgeType::kContains);
            if (e.type() == EventType::kPush) open.push_back(id);
            break;
          }
          case EventType::kPop:
            if (open.empty()) {
              // Opened before its capture window, or ended at an earlier
              // window's edge (counted then): the windows cut it.
              if (!windowed)
                ++result.unbalanced_pops;
              else if (pops_of_cut > 0)
                --pops_of_cut;
              else
                ++result.scopes_cut_by_capture;
            } else {
              trace.nodes[open.back()].end_ns = clock.to_ns(e.tsc);
              open.pop_back();
            }
            break;
          case EventType::kWork:
            if (top != kNoNode) {
              trace.nodes[top].flops += double_of(e.a);
              trace.nodes[top].bytes_moved += double_of(e.b);
            }
            break;
          case EventType::kCudaApi:
            result.launches.by_correlation[e.a] =
                LaunchPoint{top, te.tid, clock.to_ns(e.tsc), clock.to_ns(e.b)};
            break;
          case EventType::kGraphNode:
            result.launches.scope_of_graph_node[e.a] = top;
            break;
          case EventType::kRangeStart:
            range_starts.push_back({e.a, e.tsc, e.site()});
            break;
          case EventType::kRangeEnd:
            range_ends[e.a] = e.tsc;
            break;
        }
      }
    }
    // A thread cut off at the memory cap ends where its record ends; scopes
    // open at exit end at exit, and those open when the last window closed
    // end there. Only the middle ones are "open at exit".
    uint64_t close_tsc = end_tsc;
    if (te.truncated) {
      close_tsc = last_tsc;
    } else if (started > 0 && windows[started - 1].end_tsc != 0) {
      close_tsc = windows[started - 1].end_tsc;
      result.scopes_cut_by_capture += open.size();
    } else {
      result.open_scopes_at_exit += open.size();
    }
    close_all(open, clock.to_ns(close_tsc), trace);
  }
  place_ranges(range_starts, range_ends, clock, end_tsc, windows, names, trace, result);
  return result;
}

}  // namespace brickprof::agent
