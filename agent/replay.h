// Turns the recorder's per-thread event streams into trace nodes and edges,
// and remembers which scope issued each CUDA call, so GPU records (which
// arrive later, from CUPTI) can be attached to the scope that launched them.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "agent/capture.h"
#include "agent/clock.h"
#include "agent/recorder.h"
#include "analysis/trace.h"

namespace brickprof::agent {

struct LaunchPoint {
  uint32_t scope = kNoNode;  // innermost open scope at the API call
  uint32_t thread = 0;
  int64_t api_start_ns = 0;
  int64_t api_end_ns = 0;
};

struct LaunchIndex {
  std::unordered_map<uint64_t, LaunchPoint> by_correlation;
  // Scope that was open when a CUDA graph node was created (captured):
  // kernels replayed from the graph belong there.
  std::unordered_map<uint64_t, uint32_t> scope_of_graph_node;
};

struct ReplayResult {
  LaunchIndex launches;
  uint64_t unbalanced_pops = 0;  // pops, and range ends, without a start
  uint64_t open_scopes_at_exit = 0;
  // With capture windows: pops of scopes opened before a window, and scopes
  // still open when it closed (closed there). Not errors of the program.
  uint64_t scopes_cut_by_capture = 0;
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

}  // namespace brickprof::agent
