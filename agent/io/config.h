// The agent's settings, read once from the environment (see SPEC.md). A bad
// value gets one warning and the default; it never stops the host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/recorder/cpu_counters.h"

namespace brickprof::agent {

enum class SyncMode { kDeferred, kPerLayer, kImmediate, kNone };
enum class PtxMode { kHash, kSource };
// How kernels replayed from a CUDA graph are traced: each one (node; CUPTI
// then costs ~1.4 us per node per replay on an H100), or each replay as one
// GPU interval (graph; ~18 us per replay, the kernels inside unseen).
enum class GraphTrace { kNode, kGraph };
// How much of the command line a trace keeps: all of it, argv[0], nothing
// (arguments may hold a password).
enum class CmdlineMode { kFull, kProgram, kNone };
// When the trace is written: at the end only, or also at an out-of-memory
// failure (lifecycle/agent.h, save_at_out_of_memory).
enum class DumpOn { kExit, kOutOfMemory };

struct Config {
  std::string output = "brickprof-%n-%p";       // BRICKPROF_OUTPUT
  std::vector<std::string> formats = {"json", "tree", "dot"};  // BRICKPROF_FORMATS
  std::string log_level = "warn";                // BRICKPROF_LOG
  uint64_t buffer_bytes = 256ull << 20;          // BRICKPROF_BUFFER_MB
  bool gpu = true;                               // BRICKPROF_GPU=auto|off
  SyncMode sync = SyncMode::kDeferred;           // BRICKPROF_SYNC
  PtxMode ptx = PtxMode::kHash;                  // BRICKPROF_PTX
  GraphTrace graph_trace = GraphTrace::kNode;    // BRICKPROF_CUDA_GRAPH_TRACE
  // BRICKPROF_CAPTURE=all|cuda-profiler-api|scope:NAME (see capture.h)
  capture::Mode capture = capture::Mode::kAll;
  std::string capture_scope;                     // NAME of scope:NAME
  uint64_t capture_every = 1;                    // BRICKPROF_CAPTURE_EVERY: one window in K
  uint64_t capture_max = 0;                      // BRICKPROF_CAPTURE_MAX: 0 = no limit
  // How long the trace write may take when a signal ends the program; past
  // it the process dies of its signal anyway (the write may be stuck on a
  // lock the interrupted code holds).
  unsigned signal_dump_seconds = 20;             // BRICKPROF_SIGNAL_DUMP_SECONDS
  CmdlineMode cmdline = CmdlineMode::kFull;      // BRICKPROF_CMDLINE
  DumpOn dump_on = DumpOn::kExit;                // BRICKPROF_DUMP_ON
  // After each kernel, digests of the device buffers it may have written
  // (cupti/kernel_checksums.h): on the GPU where it can, or (host) always
  // by copying them to the host.
  bool checksums = false;                        // BRICKPROF_CHECKSUMS=0|1|host
  bool checksums_host_copy = false;              // BRICKPROF_CHECKSUMS=host
  // Which CPU counters each scope reads (off, on, software)
  cpu_counters::Mode cpu_counters = cpu_counters::Mode::kOff;  // BRICKPROF_CPU_COUNTERS
  // Hardware counters per kernel through CUPTI's range profiler
  // (cupti/range_profiler.h): the metrics asked for, empty for off.
  std::vector<std::string> gpu_metrics;          // BRICKPROF_GPU_METRICS
  uint64_t gpu_metrics_every = 10;               // BRICKPROF_GPU_METRICS_EVERY: one in N
  // Python frames kept per GPU launch (innermost first); 0: none read.
  uint32_t python_depth = 32;                    // BRICKPROF_PYTHON_DEPTH
  // The roofline's roofs, in place of those computed from the device.
  std::optional<double> peak_gflops;             // BRICKPROF_PEAK_GFLOPS
  std::optional<double> peak_gbps;               // BRICKPROF_PEAK_GBPS
  int64_t test_clock_shift_ns = 0;               // BRICKPROF_TEST_CLOCK_SHIFT_NS
  // Set by `brickprof run`: the pid it started (that process writes a trace
  // even if it recorded nothing), and the file where each agent lists the
  // files it wrote, for run to print.
  long run_pid = 0;                              // BRICKPROF_RUN_PID
  std::string run_manifest;                      // BRICKPROF_RUN_MANIFEST
  std::vector<std::string> warnings;             // one per bad value
};

// Reads the environment through `getenv` (injectable for tests).
Config read_config(const char* (*getenv_fn)(const char*));
const char* to_string(SyncMode mode);
// BRICKPROF_GPU_METRICS=default: L2 hit rate, DRAM bytes read and written,
// achieved occupancy, SM throughput, as Nsight Compute names them.
std::vector<std::string> default_gpu_metrics();

// A relative output prefix made absolute against `cwd` (the folder the
// program started in: it may chdir before the trace is written), its % signs
// doubled; an absolute one, or an empty `cwd`, as it is.
std::string anchor_output_pattern(const std::string& pattern, const std::string& cwd);

// Expands %p pid, %r rank, %h host, %n program name in an output prefix.
std::string expand_output_prefix(const std::string& pattern, long pid, long rank,
                                 const std::string& host, const std::string& program);

}  // namespace brickprof::agent
