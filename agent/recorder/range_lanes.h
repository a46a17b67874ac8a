// NVTX start/end ranges placed on lanes: a range may end on another thread,
// so ranges are not nested in any thread's scopes; they are gathered from
// every thread and laid out on range lanes (threads kRangeLaneBase + lane),
// as few as ranges ever overlap. The exit write's plan pass calls this
// (io/trace_stream.cpp).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/thread_walk.h"

namespace brickprof::agent {

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
