// Groups records by lane and orders each lane by time, in linear time for
// recorded traces (already in order per lane, or a few sorted runs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace brickprof {

// Stable counting sort on `.lane`, then each lane sorted by operator<:
// a lane made of at most a few ascending runs is merged, others sorted.
template <typename T>
void group_by_lane(std::vector<T>& items, size_t lanes) {
  std::vector<size_t> begin(lanes + 1, 0);
  for (const T& x : items) ++begin[x.lane + 1];
  for (size_t l = 0; l < lanes; ++l) begin[l + 1] += begin[l];
  {
    std::vector<T> sorted(items.size());
    std::vector<size_t> fill(begin.begin(), begin.end() - 1);
    for (const T& x : items) sorted[fill[x.lane]++] = x;
    items.swap(sorted);
  }
  constexpr size_t kMaxRuns = 8;
  std::vector<size_t> runs;
  for (size_t l = 0; l < lanes; ++l) {
    auto first = items.begin() + static_cast<std::ptrdiff_t>(begin[l]);
    auto last = items.begin() + static_cast<std::ptrdiff_t>(begin[l + 1]);
    runs.clear();
    runs.push_back(0);
    for (auto it = first; it + 1 < last && runs.size() <= kMaxRuns; ++it)
      if (*(it + 1) < *it) runs.push_back(static_cast<size_t>(it + 1 - first));
    if (runs.size() == 1) continue;
    if (runs.size() > kMaxRuns) {
      std::stable_sort(first, last);
      continue;
    }
    runs.push_back(static_cast<size_t>(last - first));
    // Fold the runs left to right: each merge is linear.
    for (size_t r = 1; r + 1 < runs.size(); ++r)
      std::inplace_merge(first, first + static_cast<std::ptrdiff_t>(runs[r]),
                         first + static_cast<std::ptrdiff_t>(runs[r + 1]));
  }
}

}  // namespace brickprof
