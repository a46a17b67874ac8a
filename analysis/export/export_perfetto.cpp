// Writes Perfetto's protobuf trace (see export_perfetto.h).
//
// Layout: sequence 1 holds the track descriptors (processes, threads, range
// lanes, GPUs and their streams). Every track with slices then gets a
// sequence of its own, so its events need no track id (the sequence's
// default track) and their timestamps are deltas from the event before
// (a sequence-scoped incremental clock, tied to CLOCK_MONOTONIC by one clock
// snapshot). Names are interned per sequence. A slice, begin and end, costs
// about 25 bytes: how Perfetto's own SDK keeps events small. Slices that overlap without nesting
// (possible in merged or hand-written traces) go to extra lanes under the same parent, so every
// begin is closed by its own end.
#include "analysis/export/export_perfetto.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/export/proto_writer.h"
#include "analysis/model/queries.h"

namespace brickprof {
namespace {

// Field numbers of Perfetto's protos (protos/perfetto/trace/...).
namespace field {
constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr uint32_t kClockSnapshot = 6;
constexpr uint32_t kTimestamp = 8;
constexpr uint32_t kSequenceId = 10;  // trusted_packet_sequence_id
constexpr uint32_t kTrackEvent = 11;
constexpr uint32_t kInternedData = 12;
constexpr uint32_t kSequenceFlags = 13;
constexpr uint32_t kTracePacketDefaults = 59;
constexpr uint32_t kTrackDescriptor = 60;
// TracePacketDefaults, TrackEventDefaults
constexpr uint32_t kDefaultClockId = 58;
constexpr uint32_t kTrackEventDefaults = 11;
constexpr uint32_t kDefaultTrackUuid = 11;
// ClockSnapshot, ClockSnapshot.Clock
constexpr uint32_t kClocks = 1;
constexpr uint32_t kPrimaryTraceClock = 2;
constexpr uint32_t kClockId = 1;
constexpr uint32_t kClockTimestamp = 2;
constexpr uint32_t kClockIsIncremental = 3;
// TrackDescriptor, ProcessDescriptor, ThreadDescriptor
constexpr uint32_t kUuid = 1;
constexpr uint32_t kTrackName = 2;
constexpr uint32_t kProcess = 3;
constexpr uint32_t kThread = 4;
constexpr uint32_t kParentUuid = 5;
constexpr uint32_t kPid = 1;
constexpr uint32_t kProcessName = 6;
constexpr uint32_t kTid = 2;
constexpr uint32_t kThreadName = 5;
// TrackEvent
constexpr uint32_t kType = 9;
constexpr uint32_t kNameIid = 10;
constexpr uint32_t kFlowIds = 47;
constexpr uint32_t kTerminatingFlowIds = 48;
// InternedData, EventName
constexpr uint32_t kEventNames = 2;
constexpr uint32_t kIid = 1;
constexpr uint32_t kEventName = 2;
}  // namespace field

constexpr uint64_t kIncrementalStateCleared = 1;    // TracePacket.SequenceFlags
constexpr uint64_t kMonotonicClock = 3;             // BuiltinClock MONOTONIC
constexpr uint64_t kLaneClock = 64;                 // the first sequence-scoped clock id
constexpr uint64_t kSliceBegin = 1, kSliceEnd = 2;  // TrackEvent.Type
constexpr uint32_t kDescriptorSequence = 1;

// The process a CPU thread belongs to: the trace's own, or for a merged
// trace the source it came from (a synthetic pid where two share one), so
// ranks get their own process (as in the Chrome export).
struct Processes {
  struct Process {
    int64_t pid;
    std::string name;
    uint64_t uuid = 0;
  };
  std::vector<Process> list;
  std::map<uint32_t, size_t> of_thread;

  explicit Processes(const Trace& trace) {
    std::set<int64_t> taken;
    for (size_t i = 0; i < trace.sources.size(); ++i) {
      const SourceInfo& src = trace.sources[i];
      int64_t pid = src.process.pid;
      if (!taken.insert(pid).second) pid = (int64_t{1} << 23) + static_cast<int64_t>(i);
      std::string program = src.process.program.empty() ? "process" : src.process.program;
      list.push_back({pid, program + " (" + src.label + ")"});
      for (const SourceInfo::IdMap& t : src.threads) of_thread[t.id] = i;
    }
    if (list.empty())
      list.push_back(
          {trace.process.pid, trace.process.program.empty() ? "process" : trace.process.program});
  }
  Process& of(uint32_t tid) {
    auto it = of_thread.find(tid);
    return list[it == of_thread.end() ? 0 : it->second];
  }
};

// One row of slices that nest properly; lane 0 of a track is the track.
struct Lane {
  uint64_t uuid = 0;
  std::vector<uint32_t> nodes;  // by start, longest first
};

struct TrackSlices {
  bool stream = false;       // a GPU stream, else a CPU thread or range lane
  uint32_t id = 0;           // the thread id, or the stream's device
  uint64_t uuid = 0;         // lane 0's
  uint64_t parent_uuid = 0;  // where further lanes go
  std::string name;
  std::vector<uint32_t> nodes;
  std::vector<Lane> lanes;
};

// Splits a track's nodes (sorted by start, longest first) into lanes in
// which every slice either nests in the one open before it or starts after
// it ended: the first lane that takes it, else a new one.
void split_into_lanes(const Trace& trace, TrackSlices& track, uint64_t& next_uuid) {
  std::vector<std::vector<int64_t>> open_ends;  // per lane, the ends of open slices
  for (uint32_t id : track.nodes) {
    const Node& n = trace.nodes[id];
    size_t lane = 0;
    for (; lane < open_ends.size(); ++lane) {
      std::vector<int64_t>& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= n.start_ns) ends.pop_back();
      if (ends.empty() || n.end_ns <= ends.back()) break;
    }
    if (lane == open_ends.size()) {
      open_ends.emplace_back();
      track.lanes.emplace_back();
      track.lanes.back().uuid = lane == 0 ? track.uuid : next_uuid++;
    }
    open_ends[lane].push_back(n.end_ns);
    track.lanes[lane].nodes.push_back(id);
  }
}

class PerfettoWriter {
 public:
  PerfettoWriter(const Trace& trace, std::ostream& out) : t_(trace), out_(out) {}
  void write();

 private:
  void collect_tracks();
  void write_descriptors();
  void write_lane(const Lane& lane, uint32_t sequence);
  void write_capture_windows(uint64_t uuid, uint32_t sequence);
  void begin_sequence(uint32_t sequence, uint64_t track_uuid, int64_t first_ns);
  void slice_event(uint32_t sequence, int64_t at_ns, uint64_t type, std::string_view name,
                   uint32_t name_id, uint32_t node);
  uint64_t intern(std::string_view name, uint32_t name_id, uint32_t sequence, bool* is_new);
  void descriptor(uint64_t uuid, uint64_t parent, std::string_view name, const std::string& body,
                  uint32_t which);
  void emit_packet();
  void flush();

  const Trace& t_;
  std::ostream& out_;
  std::string buffer_, packet_, event_, nested_, inner_;
  uint64_t next_uuid_ = 1;
  Processes processes_{t_};
  std::vector<TrackSlices> tracks_;  // threads and range lanes, then streams
  uint64_t capture_uuid_ = 0;
  // GPU work launched from each CPU node (CSR), the flows out of its slice.
  std::vector<uint32_t> launch_begin_, launched_;
  // Interning, per sequence: an id's iid is valid while its stamp is the
  // sequence's number.
  std::vector<uint32_t> iid_, iid_stamp_;
  std::unordered_map<std::string, uint64_t> label_iids_;
  uint64_t next_iid_ = 1;
  int64_t last_ns_ = 0;  // the sequence's incremental clock
};

bool on_gpu(const Trace& t, const Node& n) { return t.detail(n) && is_gpu_kind(n.kind); }

// Whether a flow links the node's launching scope to it (as in the Chrome export).
bool launched_from_cpu(const Trace& t, const Node& n) {
  return on_gpu(t, n) && n.parent < t.nodes.size() && is_cpu_kind(t.nodes[n.parent].kind);
}

void PerfettoWriter::collect_tracks() {
  std::map<uint32_t, std::vector<uint32_t>> threads;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> streams;
  for (uint32_t id = 0; id < t_.nodes.size(); ++id) {
    const Node& n = t_.nodes[id];
    if (on_gpu(t_, n)) {
      const GpuDetail& g = *t_.detail(n);
      streams[{g.device, g.stream}].push_back(id);
    } else {
      threads[n.thread].push_back(id);
    }
  }
  for (const ThreadInfo& info : t_.threads) threads.try_emplace(info.tid);
  for (auto& [tid, nodes] : threads) {
    TrackSlices track;
    track.id = tid;
    track.uuid = next_uuid_++;
    track.name = "Thread " + std::to_string(tid);
    for (const ThreadInfo& info : t_.threads)
      if (info.tid == tid && !info.name.empty()) track.name = info.name;
    track.nodes = std::move(nodes);
    tracks_.push_back(std::move(track));
  }
  for (auto& [key, nodes] : streams) {
    TrackSlices track;
    track.stream = true;
    track.id = key.first;
    track.uuid = next_uuid_++;
    track.name = "Stream " + std::to_string(key.second);
    track.nodes = std::move(nodes);
    tracks_.push_back(std::move(track));
  }
  for (TrackSlices& track : tracks_) {
    std::sort(track.nodes.begin(), track.nodes.end(), [&](uint32_t a, uint32_t b) {
      const Node& x = t_.nodes[a];
      const Node& y = t_.nodes[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
      return a < b;
    });
  }
  // Flows: for each CPU node, the GPU nodes it launched.
  const size_t n = t_.nodes.size();
  launch_begin_.assign(n + 1, 0);
  for (const Node& node : t_.nodes)
    if (launched_from_cpu(t_, node)) ++launch_begin_[node.parent + 1];
  for (size_t i = 0; i < n; ++i) launch_begin_[i + 1] += launch_begin_[i];
  launched_.resize(launch_begin_[n]);
  std::vector<uint32_t> fill(launch_begin_.begin(), launch_begin_.end() - 1);
  for (uint32_t id = 0; id < n; ++id)
    if (launched_from_cpu(t_, t_.nodes[id])) launched_[fill[t_.nodes[id].parent]++] = id;
}

void PerfettoWriter::emit_packet() {
  proto::bytes_field(buffer_, field::kTracePacket, packet_);
  packet_.clear();
  if (buffer_.size() >= (1u << 20)) flush();
}

void PerfettoWriter::flush() {
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

// A TrackDescriptor on the descriptor sequence; `body` is a process or
// thread descriptor (field `which`), or empty.
void PerfettoWriter::descriptor(uint64_t uuid, uint64_t parent, std::string_view name,
                                const std::string& body, uint32_t which) {
  nested_.clear();
  proto::uint_field(nested_, field::kUuid, uuid);
  if (!name.empty()) proto::bytes_field(nested_, field::kTrackName, name);
  if (parent) proto::uint_field(nested_, field::kParentUuid, parent);
  if (!body.empty()) proto::bytes_field(nested_, which, body);
  proto::uint_field(packet_, field::kSequenceId, kDescriptorSequence);
  proto::bytes_field(packet_, field::kTrackDescriptor, nested_);
  emit_packet();
}

void PerfettoWriter::write_descriptors() {
  std::string body;
  for (Processes::Process& p : processes_.list) {
    p.uuid = next_uuid_++;
    body.clear();
    proto::int_field(body, field::kPid, p.pid);
    proto::bytes_field(body, field::kProcessName, p.name);
    descriptor(p.uuid, 0, {}, body, field::kProcess);
  }
  std::map<uint32_t, uint64_t> gpu_uuids;
  for (TrackSlices& track : tracks_) {
    if (track.stream) {
      auto [gpu, added] = gpu_uuids.try_emplace(track.id, 0);
      if (added) {
        gpu->second = next_uuid_++;
        std::string name = "GPU " + std::to_string(track.id);
        for (const Device& d : t_.devices)
          if (d.id == track.id && !d.name.empty()) name += " (" + d.name + ")";
        descriptor(gpu->second, 0, name, {}, 0);
      }
      track.parent_uuid = gpu->second;
      descriptor(track.uuid, track.parent_uuid, track.name, {}, 0);
      continue;
    }
    const Processes::Process& p = processes_.of(track.id);
    track.parent_uuid = p.uuid;
    if (is_range_lane(track.id)) {  // annotations, not an OS thread: a row of the process
      descriptor(track.uuid, p.uuid, track.name, {}, 0);
      continue;
    }
    body.clear();
    proto::int_field(body, field::kPid, p.pid);
    proto::int_field(body, field::kTid, track.id);
    proto::bytes_field(body, field::kThreadName, track.name);
    descriptor(track.uuid, 0, {}, body, field::kThread);
  }
  for (TrackSlices& track : tracks_)
    for (size_t i = 1; i < track.lanes.size(); ++i)
      descriptor(track.lanes[i].uuid, track.parent_uuid,
                 track.name + " (overlapping " + std::to_string(i + 1) + ")", {}, 0);
  if (!t_.diagnostics.capture_windows.empty()) {
    capture_uuid_ = next_uuid_++;
    descriptor(capture_uuid_, processes_.list.front().uuid, "capture windows", {}, 0);
  }
}

// The first packet of a slice sequence: fresh interning state, its default
// track, and its incremental clock starting at `first_ns` (MONOTONIC).
void PerfettoWriter::begin_sequence(uint32_t sequence, uint64_t track_uuid, int64_t first_ns) {
  proto::uint_field(packet_, field::kSequenceId, sequence);
  proto::uint_field(packet_, field::kSequenceFlags, kIncrementalStateCleared);
  nested_.clear();
  proto::uint_field(nested_, field::kDefaultClockId, kLaneClock);
  inner_.clear();
  proto::uint_field(inner_, field::kDefaultTrackUuid, track_uuid);
  proto::bytes_field(nested_, field::kTrackEventDefaults, inner_);
  proto::bytes_field(packet_, field::kTracePacketDefaults, nested_);
  nested_.clear();
  inner_.clear();
  proto::uint_field(inner_, field::kClockId, kLaneClock);
  proto::uint_field(inner_, field::kClockTimestamp, static_cast<uint64_t>(first_ns));
  proto::uint_field(inner_, field::kClockIsIncremental, 1);
  proto::bytes_field(nested_, field::kClocks, inner_);
  inner_.clear();
  proto::uint_field(inner_, field::kClockId, kMonotonicClock);
  proto::uint_field(inner_, field::kClockTimestamp, static_cast<uint64_t>(first_ns));
  proto::bytes_field(nested_, field::kClocks, inner_);
  proto::uint_field(nested_, field::kPrimaryTraceClock, kMonotonicClock);
  proto::bytes_field(packet_, field::kClockSnapshot, nested_);
  emit_packet();
  last_ns_ = first_ns;
  next_iid_ = 1;
  label_iids_.clear();
}

// The name's iid on this sequence (`name_id` its string id, or 0 for a
// label built on the fly); *is_new when the packet must announce it.
uint64_t PerfettoWriter::intern(std::string_view name, uint32_t name_id, uint32_t sequence,
                                bool* is_new) {
  if (name_id != 0) {
    *is_new = iid_stamp_[name_id] != sequence;
    if (*is_new) {
      iid_stamp_[name_id] = sequence;
      iid_[name_id] = static_cast<uint32_t>(next_iid_++);
    }
    return iid_[name_id];
  }
  auto [it, added] = label_iids_.try_emplace(std::string(name), 0);
  *is_new = added;
  if (added) it->second = next_iid_++;
  return it->second;
}

// A slice begin (with its name and flows) or end on the sequence's track.
void PerfettoWriter::slice_event(uint32_t sequence, int64_t at_ns, uint64_t type,
                                 std::string_view name, uint32_t name_id, uint32_t node) {
  proto::uint_field(packet_, field::kTimestamp, static_cast<uint64_t>(at_ns - last_ns_));
  last_ns_ = at_ns;
  proto::uint_field(packet_, field::kSequenceId, sequence);
  event_.clear();
  proto::uint_field(event_, field::kType, type);
  if (type == kSliceBegin) {
    bool is_new = false;
    const uint64_t iid = intern(name, name_id, sequence, &is_new);
    if (is_new) {
      inner_.clear();
      proto::uint_field(inner_, field::kIid, iid);
      proto::bytes_field(inner_, field::kEventName, name);
      nested_.clear();
      proto::bytes_field(nested_, field::kEventNames, inner_);
      proto::bytes_field(packet_, field::kInternedData, nested_);
    }
    proto::uint_field(event_, field::kNameIid, iid);
    if (node != kNoNode) {
      // Flow ids are node ids + 1: unique in the trace, merged ones too.
      for (uint32_t i = launch_begin_[node]; i < launch_begin_[node + 1]; ++i)
        proto::fixed64_field(event_, field::kFlowIds, uint64_t{launched_[i]} + 1);
      if (launched_from_cpu(t_, t_.nodes[node]))
        proto::fixed64_field(event_, field::kTerminatingFlowIds, uint64_t{node} + 1);
    }
  }
  proto::bytes_field(packet_, field::kTrackEvent, event_);
  emit_packet();
}

void PerfettoWriter::write_lane(const Lane& lane, uint32_t sequence) {
  if (lane.nodes.empty()) return;
  begin_sequence(sequence, lane.uuid, t_.nodes[lane.nodes.front()].start_ns);
  std::vector<int64_t> open_ends;
  std::string label;
  for (uint32_t id : lane.nodes) {
    const Node& n = t_.nodes[id];
    while (!open_ends.empty() && open_ends.back() <= n.start_ns) {
      slice_event(sequence, open_ends.back(), kSliceEnd, {}, 0, kNoNode);
      open_ends.pop_back();
    }
    // As every text output names it; node_label allocates, so only where
    // the name is not the label already.
    std::string_view name = t_.name(n);
    uint32_t name_id = n.name;
    if (name.empty() || n.kind == NodeKind::kTransfer || n.kind == NodeKind::kMemset) {
      label = node_label(t_, n);
      name = label;
      name_id = 0;
    }
    slice_event(sequence, n.start_ns, kSliceBegin, name, name_id, id);
    open_ends.push_back(n.end_ns);
  }
  while (!open_ends.empty()) {
    slice_event(sequence, open_ends.back(), kSliceEnd, {}, 0, kNoNode);
    open_ends.pop_back();
  }
}

void PerfettoWriter::write_capture_windows(uint64_t uuid, uint32_t sequence) {
  const std::vector<TimeRange>& windows = t_.diagnostics.capture_windows;
  begin_sequence(sequence, uuid, windows.front().start_ns);
  for (size_t i = 0; i < windows.size(); ++i) {
    slice_event(sequence, windows[i].start_ns, kSliceBegin,
                "capture window " + std::to_string(i + 1), 0, kNoNode);
    slice_event(sequence, windows[i].end_ns, kSliceEnd, {}, 0, kNoNode);
  }
}

void PerfettoWriter::write() {
  collect_tracks();
  for (TrackSlices& track : tracks_) split_into_lanes(t_, track, next_uuid_);
  write_descriptors();
  iid_.assign(t_.strings.size(), 0);
  iid_stamp_.assign(t_.strings.size(), 0);
  uint32_t sequence = kDescriptorSequence;
  for (const TrackSlices& track : tracks_)
    for (const Lane& lane : track.lanes) write_lane(lane, ++sequence);
  if (capture_uuid_) write_capture_windows(capture_uuid_, ++sequence);
  flush();
}

}  // namespace

void write_perfetto_trace(const Trace& trace, std::ostream& out) {
  PerfettoWriter(trace, out).write();
}

}  // namespace brickprof
