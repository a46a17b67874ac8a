// What the fake CUPTI's range profiler promises (cupti_range_profiler.cpp),
// shared by the fake and the tests: the chip it reports, the metrics it
// knows and the value each takes for a launch. The values are the fake's own
// model of a launch's grid and block, not a GPU's: tests check that the
// agent carries and adds them up exactly, never what a GPU would measure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "fake_cuda.h"

namespace fake_range_profiler {

inline constexpr char kChip[] = "GH100";
// Metrics counted per replay pass: a set of N metrics takes ceil(N / 4)
// passes (the real figure depends on the chip and the counters behind them).
inline constexpr uint64_t kMetricsPerPass = 4;

// Environment switches: FAKE_CUPTI_PROFILER=privileges (the driver restricts
// counters to admin users: cuptiRangeProfilerEnable answers
// CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), busy (another client such as DCGM
// holds them: CUPTI_ERROR_HARDWARE_BUSY), busy-at-start (the same, found
// only when the first window starts, as a client that took the counters
// after our set-up would), unsupported (the device is not supported:
// cuptiProfilerDeviceSupported says its architecture is not).
inline constexpr char kEnvRefuse[] = "FAKE_CUPTI_PROFILER";

struct Launch {
  uint64_t grid[3];
  uint64_t block[3];
  uint64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
  uint64_t threads() const { return blocks() * block[0] * block[1] * block[2]; }
};

// The metrics the fake chip knows, and their values for a launch; false for
// a name it does not know.
inline bool value_of(std::string_view metric, const Launch& l, double* out) {
  const double blocks = static_cast<double>(l.blocks());
  const double threads = static_cast<double>(l.threads());
  if (metric == "dram__bytes_read.sum")
    *out = threads * 8;
  else if (metric == "dram__bytes_write.sum")
    *out = threads * 4;
  else if (metric == "lts__t_sectors.sum")
    *out = threads / 2;
  // A hit rate that differs between launches of different grids.
  else if (metric == "lts__t_sector_hit_rate.pct")
    *out = 100.0 * blocks / (blocks + 1);
  else if (metric == "sm__cycles_active.sum")
    *out = blocks * 1500;
  else if (metric == "sm__warps_active.avg.pct_of_peak_sustained_active")
    *out =
        std::min(100.0, 100.0 * static_cast<double>(l.block[0] * l.block[1] * l.block[2]) / 2048);
  // Kernel time as the fake driver runs it (fake_cuda.h).
  else if (metric == "gpu__time_duration.sum")
    *out = blocks * fake_cuda::kNsPerBlock;
  else if (metric == "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    *out = std::min(100.0, 100.0 * blocks / fake_cuda::kSmCount);
  else
    return false;
  return true;
}

}  // namespace fake_range_profiler
