// One push-style sink per output format, fed by either producer: a held
// Trace (WholeTrace, whole_trace.h: report, merge, the views, tests) or the
// agent's exit write, which streams the trace from its recorder without
// holding it (agent/io/trace_stream.h). Each format is written by its sink
// alone, so both producers write the same bytes.
//
// As Kineto's ActivityLogger, with one difference: Perfetto wants every
// track named before any slice and each lane's slices nested, which in
// bounded memory means walking a track again on request. So a sink says
// what it needs, and a producer builds only that:
//
//   begin(head)                 always
//   node(event)...              kNodes: nodes in id order
//   edge(edge)...               kEdges: the edges as the trace stores them
//   cpu_work_track()            kCpuWork: one rank measured on its CPU,
//   cpu_work(event)...            then its compute (cpu_work.h)
//   step(event, n)...           kCpuWork: report --under's steps
//   aggregate(input)            kAggregate: the aggregate tree
//   tracks(walker)              kTracks: each track's slices, on request
//   end(stats)                  always; stats only with kStats
//
// A held trace is fed as it is; the agent, which groups GPU work under its
// Python frames as report does on reading, feeds the grouped trace unless
// a sink asks for the trace as recorded (kRecorded).
//
// Sinks hold nothing per node; they may throw (a refused budget, a failed
// stream), which the writer of the outputs reports (write_outputs).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "trace/derive/aggregate_tree.h"
#include "trace/derive/stats.h"
#include "trace/model/trace.h"

namespace brickprof {

// What a producer knows before its first node.
struct TraceHead {
  const Trace& header;  // everything but the nodes: process, threads, devices, ptx, python...
  const std::set<uint32_t>& node_threads;                  // threads with CPU nodes
  const std::set<std::pair<uint32_t, uint32_t>>& streams;  // (device, stream) with GPU work
  bool nccl_kernels;                                       // a communication kernel ran
  size_t name_ids;  // slices' name ids (SliceEvent) are below this: one per distinct name
};

// One node, as the trace names it.
struct NodeEvent {
  uint32_t id;
  const Node& node;
  std::string_view name;
  const GpuDetail* detail;  // GPU work's, else null
  const CommCall* call;     // the MPI call of a scope, else null
  const Node* parent;       // kLaunchers: the node's parent (GPU work's launcher), else null
};

// One slice of a track (kTracks): a node, its name's id, and the GPU work
// it launched (ids ascending).
struct SliceEvent {
  uint32_t id;
  const Node& node;
  std::string_view name;
  uint32_t name_id;  // 0: the empty name
  const GpuDetail* detail;
  std::span<const uint32_t> launched;
  bool from_cpu;  // GPU work launched from a CPU node
};

// The aggregate tree (kAggregate): `entries` holds each entry's exemplar
// node and its names.
struct AggregateInput {
  const Trace& entries;
  const AggregateTree& tree;
  // Why there is no tree ("" when there is one): the sink is not written.
  std::string_view missing;
  // Asks the producer's memory budget for what a sink builds beside the
  // tree; false: refused. Null: no budget.
  std::function<bool(uint64_t bytes)> reserve;
};

// For a sink of the aggregate: throws "FORMAT: not written, ..." when
// there is no tree.
void require_aggregate(const AggregateInput& in, std::string_view format);

// The tracks of a trace: CPU threads and range lanes, then GPU streams, each
// walked as often as a sink asks.
class TrackWalker {
 public:
  struct Track {
    bool stream;
    uint32_t id;  // the thread id, or the stream's device
    uint32_t stream_id;
  };
  virtual ~TrackWalker() = default;
  virtual const std::vector<Track>& tracks() = 0;
  // Each slice's (start, end), in slice order (slice_precedes).
  virtual void times(size_t track, const std::function<void(int64_t, int64_t)>& visit) = 0;
  // Each slice, in the same order.
  virtual void slices(size_t track, const std::function<void(const SliceEvent&)>& visit) = 0;
};

class TraceSink {
 public:
  enum Needs : unsigned {
    kNodes = 1,
    kLaunchers = 2,  // NodeEvent::parent
    kEdges = 4,
    kCpuWork = 8,
    kAggregate = 16,
    kTracks = 32,
    kStats = 64,
    // The trace as recorded: GPU work launched outside every scope not
    // grouped under its Python frames (the JSON; report groups as it reads).
    kRecorded = 128,
  };
  virtual ~TraceSink() = default;
  virtual unsigned needs() const = 0;
  virtual void begin(const TraceHead&) {}
  virtual void node(const NodeEvent&) {}
  virtual void edge(const Edge&) {}
  virtual void cpu_work_track() {}
  virtual void cpu_work(const NodeEvent&) {}
  // The n-th step (from 0, in time order) of a trace cut to its steps.
  virtual void step(const NodeEvent&, size_t) {}
  virtual void aggregate(const AggregateInput&) {}
  virtual void tracks(TrackWalker&) {}
  virtual void end(const TraceStats*) {}
};

// A trace that feeds sinks: each feed() writes one sink's whole output.
class TraceSource {
 public:
  virtual ~TraceSource() = default;
  virtual void feed(TraceSink& sink) = 0;
};

}  // namespace brickprof
