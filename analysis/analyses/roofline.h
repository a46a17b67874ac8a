// Roofline per kernel and per brick: FLOPs and bytes from the `flops` /
// `bytes_moved` annotations (bytes measured by the GPU's counters in their
// place where the trace has them), arithmetic intensity, achieved rates, the bound
// and the distance to the roof of the device that ran them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyses/machine_peaks.h"
#include "trace/model/trace.h"

namespace brickprof {

struct RooflineEntry {
  enum class Kind : uint8_t { kKernel, kBrick };
  Kind kind = Kind::kKernel;
  std::string name;
  bool gpu = true;
  uint32_t device = 0;
  uint64_t count = 0;
  int64_t time_ns = 0;  // kernels: GPU time; bricks: GPU time of their work, else CPU time
  double flops = 0;
  double bytes = 0;
  // Where the work figures came from: "kernel" (its own annotation),
  // "brick share" (its brick's, split by GPU time), "brick".
  std::string work_source;
  // Where `bytes` came from: "declared" (the annotations above), "measured"
  // (the DRAM bytes read and written that the GPU's counters counted,
  // BRICKPROF_GPU_METRICS: a kernel's own, a brick's where every kernel under
  // it was profiled), or "mixed" (some occurrences measured, others not).
  std::string bytes_source = "declared";
  Peaks peaks;

  double intensity() const { return bytes > 0 ? flops / bytes : 0; }
  double gflops() const { return time_ns > 0 ? flops / static_cast<double>(time_ns) : 0; }
  double gbps() const { return time_ns > 0 ? bytes / static_cast<double>(time_ns) : 0; }
  bool memory_bound() const { return intensity() < peaks.gflops / peaks.gbps; }
  // Attainable GFLOP/s at this intensity, and the achieved share of it.
  double roof_gflops() const;
  double efficiency() const;
};

struct Roofline {
  std::vector<RooflineEntry> entries;  // bricks first, then kernels; by time
  uint64_t unannotated_kernels = 0;    // no work figures, own or inherited
};

Roofline compute_roofline(const Trace& trace, const PeakOverrides& overrides);

}  // namespace brickprof
