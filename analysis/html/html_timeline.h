// The HTML page's timeline (tools/html/README.md, `timeline`): host threads,
// per device the range lanes of the scopes that launched GPU work and the
// streams, packed into rows, reduced when too many, with the launch flows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/html/html_common.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

struct TimelineLane {
  enum class Kind : uint8_t { kThread, kRange, kStream };
  Kind kind = Kind::kThread;
  uint32_t tid = 0;     // kThread, kRange: the host thread
  uint32_t device = 0;  // kRange, kStream
  uint32_t stream = 0;  // kStream
  uint32_t count = 0;   // slices in the lane
  std::string name;
};

// One bar. Its name and kind are its node's (a merged slice's: its longest
// member's).
struct TimelineSlice {
  int64_t start = 0;  // since the timeline's t0
  int64_t dur = 0;
  uint32_t lane = 0;
  uint32_t depth = 0;  // the row in the lane
  uint32_t node = 0;
  // Host slices: the node's parent, so that a reduction merges siblings
  // only; kNoNode elsewhere.
  uint32_t parent = kNoNode;
  uint32_t merged = 1;  // recorded slices this one stands for

  int64_t end() const { return start + dur; }
};

// A launch: host slice -> the GPU slice it issued, `at` the call's start
// since t0 (-1 when unknown).
struct TimelineFlow {
  uint32_t from = 0;
  uint32_t to = 0;
  int64_t at = -1;
};

struct TimelineReduction {
  size_t kept = 0;    // slices as recorded
  size_t of = 0;      // slices before the reduction
  size_t merged = 0;  // merged slices, standing for of - kept recorded ones
  int64_t threshold_ns = 0;
};

struct HtmlTimeline {
  int64_t t0_ns = 0;
  int64_t span_ns = 0;
  std::vector<TimelineLane> lanes;    // in display order
  std::vector<TimelineSlice> slices;  // lane after lane, each by start, then depth
  std::vector<TimelineFlow> flows;    // by `to`
  std::optional<TimelineReduction> reduced;
};

// The whole timeline, at most `max_slices` slices. Linear in the trace but
// for sorts by start, which a recorded trace's lanes almost are already.
HtmlTimeline build_html_timeline(const Trace& trace, size_t max_slices);

// Its JSON value, as the contract lays it out.
void write_html_timeline(const Trace& trace, const HtmlTimeline& timeline, JsonWriter& w);

// The steps of building it, each in its own file.
// Merges runs of short neighbours until at most `max_slices` are left
// (html_timeline_reduce.cpp); nothing when they fit.
void reduce_timeline(HtmlTimeline& timeline, size_t max_slices);
// Fills `flows` from the final slices (html_timeline_flows.cpp).
void add_timeline_flows(const Trace& trace, HtmlTimeline& timeline);

}  // namespace brickprof
