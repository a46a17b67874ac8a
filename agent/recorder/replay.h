// Turns the recorder's per-thread event streams into trace nodes and edges,
// and remembers which scope issued each CUDA call, so GPU records (which
// arrive later, from CUPTI) can be attached to the scope that launched them.
// The exit write streams instead (trace_stream.h); this builds the whole
// Trace, for tests and as the reference the streamed output is checked
// against.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/recorder/clock.h"
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

// Start/end ranges (NVTX), which may end on another thread.
struct RangeStart {
  uint64_t id;
  uint64_t tsc;
  uint32_t site;
  bool operator<(const RangeStart& o) const { return tsc < o.tsc; }
};
// Range ends by id: (id, tsc) in the order read; place_ranges keeps the
// last end read for each id.
using RangeEnds = std::vector<std::pair<uint64_t, uint64_t>>;

// A range as a node: kind, name's site, start and end (no id yet).
struct PlacedRange {
  uint32_t site;
  uint32_t lane;  // thread kRangeLaneBase + lane
  int64_t start_ns;
  int64_t end_ns;
};
// Places ranges in start order, each on the first range lane free at its
// start (interval partitioning: as few lanes as ranges ever overlap).
// Ranges never ended close at a window's end or at `end_tsc` (counted);
// ends without a start are counted. Sorts `starts` and `ends`.
std::vector<PlacedRange> place_ranges(std::vector<RangeStart>& starts, RangeEnds& ends,
                                      const Clock& clock, uint64_t end_tsc,
                                      const std::vector<capture::Window>& windows,
                                      WalkCounts& counts, uint32_t* lanes_used);

}  // namespace brickprof::agent
