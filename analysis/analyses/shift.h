// How much slower one set of calls is than another (a brick's or kernel's
// calls in two runs), with the confidence that their spread allows: the
// Hodges-Lehmann estimate of the ratio NEW / BASE (the median of every
// pairwise ratio of a NEW call to a BASE call) and the distribution-free
// confidence interval the Mann-Whitney U statistic gives it (Hollander &
// Wolfe, Nonparametric Statistical Methods, 4.3). benchstat and Google
// Benchmark's compare.py judge timings by the same U statistic. A pure
// slow-down by K moves every pairwise ratio by K, so the estimate is K even
// where the calls have several typical durations (prefill and decode, Q and
// K/V projections), and calls held up by a preemption move it little.
#pragma once

#include <cstdint>
#include <vector>

namespace brickprof {

// Ratios NEW / BASE: `ratio` the estimate, [low, high] the interval.
struct Shift {
  double ratio = 1;
  double low = 1;
  double high = 1;
};

// Two-sided 99%: the z of the interval diff judges by.
inline constexpr double kShiftConfidenceZ = 2.5758;

// `base` and `next` (durations in ns, reordered) must not be empty. Samples
// larger than 256 calls are summarised by 256 evenly spaced quantiles, which
// keeps the cost at most 65,536 pairs per comparison; the interval is then
// that of 256 calls, wider than the full samples' would be (a gate errs
// towards passing). Durations below 1 ns count as 1 ns.
Shift estimate_shift(std::vector<int64_t>& base, std::vector<int64_t>& next,
                     double z = kShiftConfidenceZ);

}  // namespace brickprof
