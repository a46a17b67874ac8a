// The spread of one measured quantity over many calls (a kernel's duration,
// a launch call's cost): count, total, and nearest-rank percentiles, which
// show the jitter an average hides.
#pragma once

#include <cstdint>
#include <vector>

namespace brickprof {

struct Spread {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t median_ns = 0;
  int64_t p99_ns = 0;
  int64_t max_ns = 0;
};

// The nearest-rank p-th percentile (0 < p <= 1) of `values`, reordered.
int64_t nearest_rank(std::vector<int64_t>& values, double p);

// All of Spread from `values` (reordered); zeros when empty. Linear
// (nth_element).
Spread spread_of(std::vector<int64_t>& values);

}  // namespace brickprof
