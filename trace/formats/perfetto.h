// Perfetto's native trace format (<prefix>.pftrace): protobuf TracePackets
// written by hand, which Perfetto's UI and trace processor read directly and
// at a fraction of the Chrome JSON's size. A track per host thread, range
// lane and GPU stream, nested slices, flows from each launching scope to its
// GPU work, names interned per sequence and timestamps delta-encoded; a
// counter track per memory account (its live bytes), per program counter
// (its samples) and per process for its tokens so far.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "trace/model/trace.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

// The order slices take on a track: by start, the longer first (a scope
// before what it holds), then by id.
inline bool slice_precedes(int64_t start_a, int64_t end_a, uint32_t id_a, int64_t start_b,
                           int64_t end_b, uint32_t id_b) {
  if (start_a != start_b) return start_a < start_b;
  if (end_a != end_b) return end_a > end_b;
  return id_a < id_b;
}

// Splits a track's slices, visited in slice_precedes order, into lanes in
// which every slice either nests in the one open before it or starts after
// it ended: the first lane that takes it, else a new one. State: the open
// slices' ends, per lane.
class LaneSplitter {
 public:
  // The lane of the next slice.
  size_t place(int64_t start_ns, int64_t end_ns);
  size_t lanes() const { return open_ends_.size(); }

 private:
  std::vector<std::vector<int64_t>> open_ends_;
};

// The trace's packets in pieces (PerfettoSink's). First the tracks and how
// many lanes each has, then descriptors(), then each lane's slices, track by
// track in the order tracks() gives, lanes in order, and finish().
class PerfettoTraceWriter {
 public:
  // `header`: process, sources, threads, devices, capture windows (its nodes
  // are not read; it must outlive the writer). Slices name strings by ids
  // of any table with one id per distinct text, `name_ids` of them so far.
  PerfettoTraceWriter(const Trace& header, size_t name_ids, std::ostream& out);
  ~PerfettoTraceWriter();
  PerfettoTraceWriter(const PerfettoTraceWriter&) = delete;
  PerfettoTraceWriter& operator=(const PerfettoTraceWriter&) = delete;

  // A CPU thread or range lane with slices, or a GPU stream; the header's
  // threads get a track (with no lanes) whether added or not.
  void add_thread(uint32_t tid, size_t lanes);
  void add_stream(uint32_t device, uint32_t stream, size_t lanes);
  // Writes the track descriptors; the tracks are then in their final order.
  void descriptors();

  struct Track {
    bool stream;
    uint32_t id;  // the thread id, or the stream's device
    uint32_t stream_id;
    size_t lanes;
  };
  const std::vector<Track>& tracks() const { return tracks_; }

  // Slices of lane `lane` of tracks()[track] follow, in slice_precedes order.
  void begin_lane(size_t track, size_t lane);
  // One node: `name` and `name_id` as the trace names it (id 0: the empty
  // string); `launched`: the ids of GPU work launched from it, ascending;
  // `from_cpu`: it is GPU work launched from a CPU node.
  void slice(uint32_t id, const Node& node, std::string_view name, uint32_t name_id,
             const GpuDetail* detail, std::span<const uint32_t> launched, bool from_cpu);
  void end_lane();
  // The capture windows' track, the memory and program counters, and the
  // last bytes.
  void finish();

 private:
  void memory_descriptors(std::map<uint32_t, uint64_t>& gpu_uuids);
  void program_counter_descriptors();
  struct State;
  std::unique_ptr<State> s_;
  std::vector<Track> tracks_;
};

// The Perfetto trace as a sink (trace_sink.h): each track walked once to
// count its lanes (slices that overlap without nesting, possible in merged
// or hand-written traces, go to extra lanes under the same parent, so every
// begin is closed by its own end), then once per lane to write it.
class PerfettoSink : public TraceSink {
 public:
  explicit PerfettoSink(std::ostream& out) : out_(out) {}
  unsigned needs() const override { return kTracks; }
  void begin(const TraceHead& head) override {
    header_ = &head.header;
    name_ids_ = head.name_ids;
  }
  void tracks(TrackWalker& walker) override;

 private:
  std::ostream& out_;
  const Trace* header_ = nullptr;
  size_t name_ids_ = 0;
};

}  // namespace brickprof
