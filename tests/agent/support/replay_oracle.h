// A second, independent builder of the whole Trace, for tests: the
// recorder's per-thread events replayed into CPU nodes with maps (every
// launch point kept by correlation), and GPU records attached to the scope
// that launched them through those maps. The agent's exit write streams
// instead (agent/io/trace_stream.h) and attributes in place
// (agent/io/gpu_attribution.h); tests build both and compare.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/gpu_source.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/range_lanes.h"
#include "agent/recorder/recorder.h"
#include "agent/recorder/thread_walk.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

struct LaunchPoint {
  uint32_t scope = kNoNode;  // innermost open scope at the API call
  uint32_t thread = 0;
  int64_t api_start_ns = 0;
  int64_t api_end_ns = 0;
  uint32_t python_stack = kNoPythonStack;
};

struct LaunchIndex {
  std::unordered_map<uint64_t, LaunchPoint> by_correlation;
  // Scope that was open when a CUDA graph node was created (captured):
  // kernels replayed from the graph belong there.
  std::unordered_map<uint64_t, uint32_t> scope_of_graph_node;
};

struct ReplayResult : WalkCounts {
  LaunchIndex launches;
  uint32_t range_lanes = 0;  // threads kRangeLaneBase + [0, range_lanes) hold start/end ranges
};

// Appends CPU nodes (layers, bricks, scopes, marks) with contains edges, and
// start/end ranges as root nodes on range lanes. Scopes and ranges still open
// at the end are closed at `end_tsc` and counted. With capture windows (in
// order; none when the whole run was recorded), a scope open when its
// window closed ends there.
ReplayResult replay(const std::vector<Recorder::ThreadEvents>& threads, const Clock& clock,
                    uint64_t end_tsc, Trace& trace,
                    const std::vector<capture::Window>& windows = {});

struct Attached {
  uint64_t orphans = 0;          // found no launching scope (they stay roots)
  uint64_t outside_capture = 0;  // left out: launched outside the capture windows
};

// Appends the dump's GPU records to `trace` in staged order: parent = the
// scope that launched the work (for graph replays: the scope open when the
// graph node was captured, the node it was cloned from first), thread, API
// times and Python stack from the launch, a `launches` edge from that scope;
// copy and memset addresses from the dump. Then the dump's devices, ptx[]
// and diagnostics (contribute_header).
Attached attach_gpu(GpuDump& dump, const LaunchIndex& launches, Trace& trace);

}  // namespace brickprof::agent
