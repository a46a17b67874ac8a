// Kernel launch statistics: what each launch cost the host and how long the
// kernel then waited, per kernel name and per launch path. A kernel that ran
// shorter on the GPU than its launch call took on the CPU is launch-bound:
// the host cannot issue such kernels as fast as the GPU finishes them, and
// a CUDA graph (one call for many kernels) is the usual cure. Graph-replayed
// kernels are counted apart, as issued at their cuGraphLaunch; so are whole
// graph replays traced as one interval, which are launches, not kernels
// (a row of their own, not in the kernel counts). Each Spread
// counts the launches that had it: a kernel without API times has no call
// and no delay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyses/spread.h"
#include "trace/model/trace.h"

namespace brickprof {

struct KernelLaunches {
  std::string name;
  bool from_graph = false;
  uint64_t count = 0;
  Spread gpu;                      // kernel duration
  Spread call;                     // launch call (api_end - api_start); direct launches only
  Spread delay;                    // launch call start to kernel start
  uint64_t shorter_than_call = 0;  // gpu < call: launch-bound
  int64_t shorter_gpu_ns = 0;      // their GPU time
};

struct GraphLaunches {
  uint64_t launches = 0;  // distinct cuGraphLaunch calls (correlation ids)
  uint64_t kernels = 0;
  uint64_t whole = 0;  // replays traced as one interval, no kernels seen
  Spread call;         // the cuGraphLaunch call
  Spread first_delay;  // call start to the first kernel's start
};

struct LaunchStats {
  uint64_t kernels = 0;
  uint64_t direct = 0;  // launched one by one
  Spread call;          // over direct launches
  Spread delay;         // over direct launches
  uint64_t shorter_than_call = 0;
  int64_t shorter_gpu_ns = 0;
  int64_t direct_gpu_ns = 0;
  GraphLaunches graph;
  std::vector<KernelLaunches> by_kernel;  // by GPU time, most first
};

// Linear in the kernels: medians and p99s by nth_element per name.
LaunchStats analyze_launches(const Trace& trace);

}  // namespace brickprof
