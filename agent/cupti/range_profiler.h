// GPU hardware counters per kernel (BRICKPROF_GPU_METRICS, `brickprof run
// --gpu-metrics`) through CUPTI's range profiler (cupti_range_profiler.h,
// cupti_profiler_host.h; CUDA 12.6 and later).
//
// How: auto ranges with kernel replay. An injected agent cannot replay the
// program, so user ranges would only work for metric sets that fit one pass;
// with kernel replay CUPTI replays each profiled kernel once per pass inside
// its launch call, so any set works. Each profiled launch is its own
// profiling window: at the launch call's enter the profiler is configured
// and started on the launch's context, at its exit stopped and decoded, and
// the one range it holds is the launch's (its name is checked against the
// kernel's). The values go on the kernel's node by correlation id
// (io/gpu_metric_events.h); a scope's figure is its kernels'
// (analysis/analyses/gpu_metrics.h), so the times stay our own.
//
// Sampling: the kernels of one occurrence in N of each scope path are
// profiled (BRICKPROF_GPU_METRICS_EVERY: the 1st, N+1th, ...), which bounds
// the replay cost. An occurrence is one push-to-pop of the launch's
// innermost scope; a launch outside every scope is its own. The counts of
// occurrences profiled and skipped are in the trace.
//
// Where it cannot run it refuses once, in one line in the log and in
// diagnostics.gpu_metrics, and the run is otherwise unchanged: a CUPTI
// without the profiler API, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (the
// driver's NVreg_RestrictProfilingToAdminUsers), another client holding the
// counters (DCGM's profiling module, Nsight Compute), a device the profiler
// does not support, a metric name the chip does not know.
#pragma once

#include <cupti.h>

#include "agent/cupti/state.h"
#include "agent/recorder/staged_records.h"
#include "trace/model/trace.h"

namespace brickprof::agent::range_profiler {

// At start, when metrics are asked for: resolves the profiler API from the
// loaded CUPTI and initialises it. False when it refused (said once); the
// caller then installs nothing. Per-context setup waits for the first
// profiled launch (there is no context before).
bool start(GpuState& s);

// The scope-end hook's part: the closing scope's occurrence has ended.
void scope_ending();

// At a driver launch call's enter and exit (cbid: which call).
void before_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void after_launch(GpuState& s, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// Into `header`: diagnostics.gpu_metrics, the gpu_metrics section (each
// profiled launch's values on its kernel's node) and warnings for what was
// not profiled.
void contribute(const GpuState& s, const StagedRecords& staged, Trace& header);

void reset_after_fork();

}  // namespace brickprof::agent::range_profiler
