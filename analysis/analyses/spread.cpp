// Spread of a measured quantity (see spread.h).
#include "analysis/analyses/spread.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace brickprof {

int64_t nearest_rank(std::vector<int64_t>& values, double p) {
  if (values.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  auto at =
      values.begin() + static_cast<std::ptrdiff_t>(std::clamp<size_t>(rank, 1, values.size()) - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

Spread spread_of(std::vector<int64_t>& values) {
  Spread s;
  s.count = values.size();
  if (values.empty()) return s;
  for (int64_t v : values) s.total_ns += v;
  auto [min, max] = std::minmax_element(values.begin(), values.end());
  s.min_ns = *min;
  s.max_ns = *max;
  s.median_ns = nearest_rank(values, 0.5);
  s.p99_ns = nearest_rank(values, 0.99);
  return s;
}

}  // namespace brickprof
