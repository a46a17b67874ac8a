// Device facts for the roofline: name, SMs, clocks, memory bus, and peak
// FP32 FLOP/s and DRAM bytes/s derived from them, or taken from
// BRICKPROF_PEAK_GFLOPS / BRICKPROF_PEAK_GBPS when set.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace/model/trace.h"

namespace brickprof::agent {

struct DeviceAttributes {
  uint32_t id = 0;
  std::string name;
  int sm_count = 0;
  int clock_khz = 0;         // CU_DEVICE_ATTRIBUTE_CLOCK_RATE
  int memory_clock_khz = 0;  // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
  int bus_width_bits = 0;    // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
  int cc_major = 0;
  int cc_minor = 0;
  uint64_t memory_bytes = 0;  // cuDeviceTotalMem; 0 unknown
};

// FP32 lanes per SM by compute capability (CUDA programming guide,
// "arithmetic instructions" throughput table).
int fp32_lanes_per_sm(int cc_major, int cc_minor);

// Peaks: FLOP/s = SMs x lanes x 2 (FMA) x clock; bytes/s = 2 (DDR) x memory
// clock x bus width / 8. An override (BRICKPROF_PEAK_*, checked when the
// settings were read) replaces its figure.
Device make_device(const DeviceAttributes& a, std::optional<double> gflops_override,
                   std::optional<double> gbps_override);

struct GpuState;
// Adds device `ordinal` to state.devices once (driver attribute queries).
void query_device(GpuState& state, int ordinal);
// Every device, if the host initialised CUDA (never initialises it itself).
void query_all_devices(GpuState& state);
// At exit: the devices that contexts or GPU records name; all of them only
// if none is known (a process with eight GPUs that used one lists one).
void query_used_devices(GpuState& state);

}  // namespace brickprof::agent
