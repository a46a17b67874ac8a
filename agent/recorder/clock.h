// The one timeline: CLOCK_MONOTONIC nanoseconds. The hot path reads the CPU's
// invariant cycle counter (a few ns, vs ~2.4x that for clock_gettime) and the
// dump converts ticks to nanoseconds with a fit taken between two calibration
// points. CUPTI is handed monotonic_ns() so GPU times land on the same line.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace brickprof::agent {

// BRICKPROF_TEST_CLOCK_SHIFT_NS, for tests only: added to every time this
// agent reads, as if this process's host clock were that far ahead, so a
// test on one machine can check that `merge` puts ranks back on one
// timeline. Set once by Clock::init, from the settings.
inline int64_t test_clock_shift_ns = 0;

inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec + test_clock_shift_ns;
}

class Clock {
 public:
  // Ticks for the hot path: the cycle counter where it is invariant, else ns.
  static inline uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    if (__builtin_expect(use_tsc_, 1)) return __rdtsc();
#endif
    return static_cast<uint64_t>(monotonic_ns());
  }
  // Decides tsc vs clock_gettime; takes the first calibration point.
  // `test_shift_ns`: BRICKPROF_TEST_CLOCK_SHIFT_NS (see above).
  static void init(int64_t test_shift_ns = 0);
  static bool uses_tsc() { return use_tsc_; }

  // A conversion fitted from init() to now; spins up to a few ms if the run
  // was too short for a precise fit.
  static Clock fit_now();
  int64_t to_ns(uint64_t ticks) const;
  double ns_per_tick() const { return ns_per_tick_; }
  // A length of `ticks` ticks (not a time on the line) in nanoseconds.
  int64_t span_ns(uint64_t ticks) const {
    return use_tsc_ ? static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick_ + 0.5)
                    : static_cast<int64_t>(ticks);
  }

 private:
  static bool use_tsc_;
  uint64_t tick0_ = 0;
  int64_t ns0_ = 0;
  double ns_per_tick_ = 1.0;
};

}  // namespace brickprof::agent
