// Sorting the timeline's slices lane after lane: a counting sort by lane, then
// each lane stably by the given order, skipped for a lane already in order (a
// recorded trace's lanes mostly are). Shared by the timeline's build and its
// reduction.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "analysis/html/html_timeline.h"

namespace brickprof {

// Stable: slices that `less` does not order keep their order.
template <typename Less>
void sort_within_lanes(std::vector<TimelineSlice>& slices, size_t lane_count, Less less) {
  std::vector<size_t> begin(lane_count + 1, 0);
  for (const TimelineSlice& s : slices) begin[s.lane + 1]++;
  for (size_t l = 0; l < lane_count; ++l) begin[l + 1] += begin[l];
  std::vector<TimelineSlice> out(slices.size());
  std::vector<size_t> next(begin.begin(), begin.end() - 1);
  for (const TimelineSlice& s : slices) out[next[s.lane]++] = s;
  for (size_t l = 0; l < lane_count; ++l) {
    auto first = out.begin() + static_cast<std::ptrdiff_t>(begin[l]);
    auto last = out.begin() + static_cast<std::ptrdiff_t>(begin[l + 1]);
    if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
  }
  slices = std::move(out);
}

// The contract's order of the final slices: by start, then row.
inline bool by_start_then_row(const TimelineSlice& a, const TimelineSlice& b) {
  return a.start != b.start ? a.start < b.start : a.depth < b.depth;
}

}  // namespace brickprof
