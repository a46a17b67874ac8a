// FLOP-throughput probe: independent multiply-add chains in registers on
// every pool thread, the compute roof of a CPU kernel table (as the read
// probe in bandwidth.h is its memory roof).
#pragma once

#include "kernels/cpu_kernels.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

struct FlopsResult {
  double gflops = 0;  // best pass, 1e9 FLOPs per second (FP32)
  int passes = 0;
};

// Runs `k.fma_chains` on every pool thread for about `seconds` (at least one
// pass of a few ms); reports the best pass, the one least disturbed by other
// processes. Zero when the table has no probe.
FlopsResult measure_fma_throughput(const CpuKernels& k, ThreadPool& pool, double seconds);

}  // namespace bricklayer
