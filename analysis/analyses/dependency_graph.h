// The dependency graph the timing analyses run on: leaf activities (CPU self
// time, GPU operations) joined by the real orderings that held when the trace
// was recorded, not by the nesting tree.
//
// Model (why it counts every nanosecond once): a scope's CPU duration
// contains its children's, so scopes themselves are not vertices. Each CPU
// thread's timeline is cut at every scope boundary and at every API call that
// issues GPU work; each piece becomes one activity owned by the innermost
// scope open over it (its self time). Time on a thread outside every scope
// becomes an "untracked" activity (owner kNoNode), so a thread's activities
// tile its span exactly: from its first scope, host wait or launch to its
// last. Every kernel, copy and memset is one activity on its
// (device, stream) lane. Host waits (stream/context/event synchronise,
// blocking copies) are activities whose modelled duration is only the part of
// the wait that is not explained by the GPU work they wait for, so making
// that work faster makes the wait shorter.
//
// Edges (all zero-lag; a vertex starts when its last predecessor finishes):
//   program order on each thread; issue order on each stream; the CPU piece
//   that ends at a launch's api_start_ns -> the GPU operation; event record
//   -> stream wait / event synchronise (matched by event id, latest record
//   issued before the wait); the last operation issued on a stream before a
//   host synchronise -> the wait; a blocking copy -> its host wait; and the
//   trace's own `sequence`/`depends_on` edges, between whole nodes: from the
//   last activity inside src (a scope's nested scopes included; a GPU
//   operation's own) to the first inside dst. `contains`/`launches`/
//   `transfer` edges are nesting only.
//
// A host wait's own part starts when the GPU work it waits for had finished
// as measured: for an operation its end, for a marker (event record, stream
// wait) the end of the work queued before it on its stream (or recorded on
// the event it waits for), not the marker's host call.
//
// With capture windows, stretches between them where no activity lies were
// not recorded: the model's clock leaves them out for every lane alike
// (recorded_offset), so a thread that resumes in the next window and one
// that was idle across the gap stay in step.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// Raised when the dependencies cannot be ordered (a cycle).
class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Lane {
  enum class Kind : uint8_t { kThread, kStream };
  Kind kind = Kind::kThread;
  uint32_t thread = 0;  // kThread
  uint32_t device = 0;  // kStream
  uint32_t stream = 0;  // kStream
};

struct DependencyGraph {
  // Per activity (structure of arrays: 10^7-event traces must fit in memory).
  std::vector<uint32_t> owner;    // node id, or kNoNode for untracked CPU time
  std::vector<uint32_t> lane;     // index into lanes
  std::vector<int64_t> start;     // measured start on the trace timeline
  std::vector<int64_t> duration;  // modelled duration (see header comment)
  // Predecessors in compressed form: preds[pred_begin[v] .. pred_begin[v+1]).
  std::vector<uint32_t> pred_begin;
  std::vector<uint32_t> preds;
  std::vector<uint32_t> order;  // a topological order of all activities
  std::vector<Lane> lanes;
  int64_t origin = 0;  // earliest measured start
  // Latest measured end of any activity: a host wait's (a blocking call's
  // return) included, not only the GPU work's.
  int64_t measured_end = 0;
  // Stretches between capture windows with no activity, in time order, and
  // how much of them lies before each.
  std::vector<TimeRange> unrecorded;
  std::vector<int64_t> unrecorded_before;
  uint64_t ignored_edges = 0;  // trace edges whose ends have no activity

  size_t size() const { return owner.size(); }
  // `t` on the model's clock: time since origin, less the unrecorded time
  // before it. A source activity may not start before its own.
  int64_t recorded_offset(int64_t t) const;
  // The measured span on that clock: origin to measured_end.
  int64_t measured_span() const { return size() ? recorded_offset(measured_end) : 0; }
};

// Builds the graph; throws GraphError on a dependency cycle (message names a
// node on it). Linear in nodes + edges apart from sorting each lane by time
// (skipped when a lane is already in order, as recorded traces are).
DependencyGraph build_dependency_graph(const Trace& trace);

// True for a `sync` node that records an event rather than waiting: the
// schema has no separate kind, so cudaEventRecord/cuEventRecord are `event`
// syncs whose name contains "Record".
bool is_event_record(const Trace& trace, const Node& node);

}  // namespace brickprof
