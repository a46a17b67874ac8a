// Statistics the benchmarks print, so each figure they quote means one thing.
#pragma once

#include <algorithm>
#include <vector>

namespace brickprof::bench {

// The median of `v` as the benchmarks quote it: the middle value of an odd
// count, the higher of the two middle ones of an even count; 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  return *middle;
}

}  // namespace brickprof::bench
