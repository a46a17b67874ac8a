// Cycle-counter calibration against CLOCK_MONOTONIC (see clock.h).
#include "agent/recorder/clock.h"

#include <cpuid.h>

namespace brickprof::agent {
namespace {

struct Point {
  uint64_t tick = 0;
  int64_t ns = 0;
};

// A (ticks, ns) pair read back to back; the tightest of a few tries, so a
// preemption between the two reads does not skew the fit.
Point sample() {
  Point best;
  uint64_t best_gap = UINT64_MAX;
  for (int i = 0; i < 5; ++i) {
    uint64_t t0 = Clock::ticks();
    int64_t ns = monotonic_ns();
    uint64_t t1 = Clock::ticks();
    if (t1 - t0 < best_gap) {
      best_gap = t1 - t0;
      best = {t0 + (t1 - t0) / 2, ns};
    }
  }
  return best;
}

bool has_invariant_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx >> 8) & 1u;
#else
  return false;
#endif
}

Point g_start;
constexpr int64_t kMinFitNs = 20'000'000;  // 20 ms: fit error ~1e-5 relative

}  // namespace

bool Clock::use_tsc_ = false;

void Clock::init(int64_t test_shift_ns) {
  test_clock_shift_ns = test_shift_ns;
  use_tsc_ = has_invariant_tsc();
  g_start = sample();
}

Clock Clock::fit_now() {
  Clock c;
  c.tick0_ = g_start.tick;
  c.ns0_ = g_start.ns;
  if (!use_tsc_) return c;  // ticks are already nanoseconds
  Point end = sample();
  while (end.ns - g_start.ns < kMinFitNs) end = sample();
  c.ns_per_tick_ = static_cast<double>(end.ns - g_start.ns) /
                   static_cast<double>(end.tick - g_start.tick);
  return c;
}

int64_t Clock::to_ns(uint64_t t) const {
  if (!use_tsc_) return static_cast<int64_t>(t);
  double delta = static_cast<double>(static_cast<int64_t>(t - tick0_)) * ns_per_tick_;
  return ns0_ + static_cast<int64_t>(delta);
}

}  // namespace brickprof::agent
