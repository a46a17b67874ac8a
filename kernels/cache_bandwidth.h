// The read bandwidth one thread reaches over working sets the size of each
// cache level, for brickprof's tiles (BRICKPROF_SET_CACHE_BANDWIDTH): the
// figure a macro, midi or micro tile's bytes per second is set against.
#pragma once

#include <cstdint>

#include "kernels/cpu_kernels.h"

namespace bricklayer {

struct CacheSizes {
  int64_t bytes[3] = {0, 0, 0};  // L1 data, L2, L3 of the calling thread's core
  const char* source = "";       // "sysfs", "sysconf" or "default"
};

// From /sys/devices/system/cpu/cpu0/cache (the level's data or unified
// cache), else sysconf(_SC_LEVEL*_CACHE_SIZE), else 32 KiB, 1 MiB, 8 MiB.
CacheSizes cache_sizes();

struct CacheBandwidth {
  double gbps[3] = {0, 0, 0};          // L1, L2, L3; 1e9 bytes per second, best pass
  int64_t working_set[3] = {0, 0, 0};  // bytes summed per level: half its cache
};

// Sums a buffer of half each level's size with `k.sum` on this thread, for
// about `seconds` per level, after one pass that brings it in.
CacheBandwidth measure_cache_bandwidth(const CpuKernels& k, const CacheSizes& sizes,
                                       double seconds);

}  // namespace bricklayer
