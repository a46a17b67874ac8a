// Peak FLOP/s and bandwidth the roofline and transfer views compare against:
// measured or device-reported values from the trace, user overrides, and a
// built-in per-backend table as a labelled last resort.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

struct Peaks {
  double gflops = 0;
  double gbps = 0;
  // "override", "measured ...", "device attributes", "default (...)", or,
  // when the two figures came from different places, "FLOP/s <source>;
  // bandwidth <source>".
  std::string source;
  // Both figures are the table's.
  bool is_default() const { return source.rfind("default", 0) == 0; }
};

// Overrides of the peaks (`brickprof report --peak-gflops, --peak-gbps,
// --link-gbps`); 0 = unset.
struct PeakOverrides {
  double gflops = 0;
  double gbps = 0;
  double link_gbps = 0;
};

enum class Backend : uint8_t { kScalar, kAvx2, kAvx512, kNeon, kGpu };

// The built-in table, labelled "default (built-in AVX2 CPU peaks, not
// measured)": RTX 4090 83 TFLOPS/1008 GB/s, AVX-512 2.0/100, AVX2 0.5/50,
// NEON 0.2/40, scalar 0.1/25 (FP32, approximate).
Peaks backend_default(Backend backend);
std::string_view to_string(Backend backend);

// The devices[] entry that carries the host's peaks: the agent writes one
// (id kHostDeviceId, named "cpu") when the program called
// brickprof_set_host_peaks; hand-made traces name theirs "cpu..." (any
// case); `brickprof merge` renumbers and renames it ("rank 1: cpu") and
// keeps its recorded id in sources[].devices.
bool is_cpu_device(const Trace& trace, const Device& device);

// Peaks of GPU `device`, each figure on its own: its override, else its
// devices[] entry's value (peak_gflops/peak_gbps, labelled with its
// peaks_source; 0 = not known), else the RTX 4090 row. The source names
// each figure's origin when they differ.
Peaks gpu_peaks(const Trace& trace, uint32_t device, const PeakOverrides& overrides);
// Host peaks, each figure on its own: its override, else the "cpu" devices[]
// entry's value (0 = not measured), else the table row of the SIMD backend
// the trace's names mention (avx512/avx2/neon/scalar; AVX2 if none). The
// source names each figure's origin when they differ.
Peaks cpu_peaks(const Trace& trace, const PeakOverrides& overrides);

// Host<->device link bandwidth, GB/s: override, else a default by the
// device's name (PCIe 4.0 x16 = 25 GB/s achievable, H100/H200/A100 SXM
// NVLink-C2C/PCIe 5 = 50 GB/s), labelled.
Peaks link_peak(const Trace& trace, uint32_t device, const PeakOverrides& overrides);

// How text outputs head a set of peaks, naming a CPU's instruction set:
// "CPU peak (AVX-512, measured by the program)", "CPU peak (AVX2, built-in
// default, not measured)", "GPU 0 peak (device attributes)", "CPU peak
// (AVX2, FLOP/s override; bandwidth measured by the program)". The
// instruction set is the one the program's measurement names, else the one
// the trace's names mention (the table row's, for a default); none when
// neither says. `device` is ignored for the CPU.
std::string peaks_heading(const Trace& trace, bool gpu, uint32_t device, const Peaks& peaks);
// What the source says beyond the heading: the program's own description
// of its measurement ("read probe (avx512, 2 threads), ..."), or "".
std::string peaks_detail(const Peaks& peaks);

}  // namespace brickprof
