// Range placement on lanes (see range_lanes.h).
#include "agent/recorder/range_lanes.h"

#include <algorithm>
#include <iterator>
#include <queue>

namespace brickprof::agent {
namespace {

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

}  // namespace brickprof::agent
