// The Hodges-Lehmann ratio and its Mann-Whitney interval (see shift.h).
#include "analysis/analyses/shift.h"

#include <algorithm>
#include <cmath>

namespace brickprof {
namespace {

constexpr size_t kMaxSample = 256;

// Log durations of `values` (sorted here), or of kMaxSample quantiles of them.
std::vector<double> log_sample(std::vector<int64_t>& values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const size_t k = std::min(n, kMaxSample);
  std::vector<double> out(k);
  for (size_t i = 0; i < k; ++i) {
    // The middle of the i-th of k equal slices (every value when k == n).
    const size_t at = k == n ? i : std::min(n - 1, static_cast<size_t>((i + 0.5) * n / k));
    out[i] = std::log(static_cast<double>(std::max<int64_t>(values[at], 1)));
  }
  return out;
}

// The value of rank `index` (0-based) in `d`, reordered.
double nth(std::vector<double>& d, size_t index) {
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(index), d.end());
  return d[index];
}

}  // namespace

Shift estimate_shift(std::vector<int64_t>& base, std::vector<int64_t>& next, double z) {
  const std::vector<double> x = log_sample(base), y = log_sample(next);
  if (x.empty() || y.empty()) return {};
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double b : x)
    for (double n : y) d.push_back(n - b);
  const size_t pairs = d.size();
  // Median of the pairwise log ratios (the mean of the middle two for an even count).
  double mid = nth(d, pairs / 2);
  if (pairs % 2 == 0) mid = (mid + *std::max_element(d.begin(), d.begin() + pairs / 2)) / 2;
  // The interval's ends are the pairwise ratios of rank C+1 and pairs-C,
  // C the U statistic's lower critical value (normal approximation).
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double c = std::floor(nx * ny / 2 - z * std::sqrt(nx * ny * (nx + ny + 1) / 12));
  const size_t lower = c <= 0 ? 0 : std::min(pairs - 1, static_cast<size_t>(c));
  const size_t upper = pairs - 1 - std::min(lower, pairs - 1);
  Shift s;
  s.ratio = std::exp(mid);
  s.low = std::exp(nth(d, std::min(lower, upper)));
  s.high = std::exp(nth(d, std::max(lower, upper)));
  return s;
}

}  // namespace brickprof
