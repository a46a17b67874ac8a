// Read-bandwidth probe: a streaming sum over a buffer much larger than the LLC.
#pragma once

#include <cstdint>

#include "kernels/cpu_kernels.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

struct BandwidthResult {
  double gbps = 0;       // best pass, 1e9 bytes per second
  int64_t bytes = 0;     // bytes of one pass (a segment)
  int passes = 0;
};

// Sums a `bytes` buffer on every pool thread for about `seconds`, one
// `segment` at a time in turn (all threads on one segment, like a GEMV on one
// matrix); reports the best segment pass (the one least disturbed by other
// processes). Keep `bytes` well above the LLC so every pass reads DRAM.
// One pass: every pool thread sums its share of floats [base, base + n);
// returns the seconds it took.
double read_pass_seconds(const CpuKernels& k, ThreadPool& pool, const float* base, int64_t n);

BandwidthResult measure_read_bandwidth(const CpuKernels& k, ThreadPool& pool, int64_t bytes,
                                       double seconds, int64_t segment = 32ll << 20);

}  // namespace bricklayer
