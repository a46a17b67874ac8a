// Read-bandwidth probe: a streaming sum over a buffer much larger than the LLC.
#pragma once

#include <cstdint>

#include "kernels/cpu_kernels.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

struct BandwidthResult {
  double gbps = 0;       // best pass, 1e9 bytes per second
  int64_t bytes = 0;     // buffer size
  int passes = 0;
};

// Sums a `bytes` buffer on every pool thread for about `seconds`; reports the
// best pass (the one least disturbed by other processes).
BandwidthResult measure_read_bandwidth(const CpuKernels& k, ThreadPool& pool, int64_t bytes,
                                       double seconds);

}  // namespace bricklayer
