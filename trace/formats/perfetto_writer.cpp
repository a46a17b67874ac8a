// Writes Perfetto's protobuf trace, track by track (see export_perfetto.h).
//
// Layout: sequence 1 holds the track descriptors (processes, threads, range
// lanes, GPUs and their streams). Every lane of a track with slices then
// gets a sequence of its own, so its events need no track id (the
// sequence's default track) and their timestamps are deltas from the event
// before (a sequence-scoped incremental clock, tied to CLOCK_MONOTONIC by
// one clock snapshot). Names are interned per sequence. A slice, begin and
// end, costs about 25 bytes: how Perfetto's own SDK keeps events small.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/derive/memory_accounts.h"
#include "trace/formats/perfetto.h"
#include "trace/formats/proto_writer.h"
#include "trace/formats/source_processes.h"
#include "trace/model/queries.h"

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
constexpr uint32_t kCounter = 8;  // TrackDescriptor.counter: a CounterDescriptor
constexpr uint32_t kUnit = 3;     // CounterDescriptor.unit
constexpr uint32_t kPid = 1;
constexpr uint32_t kProcessName = 6;
constexpr uint32_t kTid = 2;
constexpr uint32_t kThreadName = 5;
// TrackEvent
constexpr uint32_t kType = 9;
constexpr uint32_t kTrackUuid = 11;
constexpr uint32_t kCounterValue = 30;
constexpr uint32_t kDoubleCounterValue = 44;
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
constexpr uint64_t kCounterEvent = 4;               // TrackEvent.Type TYPE_COUNTER
constexpr uint64_t kUnitCount = 2, kUnitSizeBytes = 3;  // CounterDescriptor.Unit
constexpr uint32_t kDescriptorSequence = 1;

// "GPU 0 (NVIDIA H100 80GB HBM3)".
std::string gpu_track_name(const Trace& t, uint32_t device) {
  std::string name = "GPU " + std::to_string(device);
  for (const Device& d : t.devices)
    if (d.id == device && !d.name.empty()) name += " (" + d.name + ")";
  return name;
}

}  // namespace

size_t LaneSplitter::place(int64_t start_ns, int64_t end_ns) {
  size_t lane = 0;
  for (; lane < open_ends_.size(); ++lane) {
    std::vector<int64_t>& ends = open_ends_[lane];
    while (!ends.empty() && ends.back() <= start_ns) ends.pop_back();
    if (ends.empty() || end_ns <= ends.back()) break;
  }
  if (lane == open_ends_.size()) open_ends_.emplace_back();
  open_ends_[lane].push_back(end_ns);
  return lane;
}

struct PerfettoTraceWriter::State {
  State(const Trace& header, size_t name_ids, std::ostream& o)
      : t(header), out(o), iid(name_ids, 0), iid_stamp(name_ids, 0) {}

  void descriptor(uint64_t uuid, uint64_t parent, std::string_view name, const std::string& body,
                  uint32_t which);
  void begin_sequence(uint64_t track_uuid, int64_t first_ns);
  void slice_event(int64_t at_ns, uint64_t type, std::string_view name, uint32_t name_id,
                   std::span<const uint32_t> launched, uint64_t terminating_flow);
  uint64_t intern(std::string_view name, uint32_t name_id, bool* is_new);
  void emit_packet();
  void flush();

  const Trace& t;
  std::ostream& out;
  std::string buffer, packet, event, nested, inner;
  uint64_t next_uuid = 1;
  SourceProcesses processes{t};
  std::vector<uint64_t> process_uuids;  // by processes.list() index
  struct TrackIds {
    uint64_t uuid = 0;         // lane 0's
    uint64_t parent_uuid = 0;  // where further lanes go
    std::string name;
    std::vector<uint64_t> lane_uuids;
  };
  std::vector<TrackIds> ids;  // by track
  uint64_t capture_uuid = 0;
  std::vector<uint64_t> memory_uuids;  // a counter track per memory account
  // A counter track per process and program counter, and one per process
  // for its tokens so far: by (process index, kind, name).
  std::map<std::tuple<size_t, CounterKind, StringId>, uint64_t> program_counter_uuids;
  uint64_t program_counter_uuid(const CounterSample& c) const {
    return program_counter_uuids.at({processes.index_of(c.thread), c.kind, c.name});
  }
  // Interning, per sequence: an id's iid is valid while its stamp is the
  // sequence's number.
  std::vector<uint32_t> iid, iid_stamp;
  std::unordered_map<std::string, uint64_t> label_iids;
  uint64_t next_iid = 1;
  int64_t last_ns = 0;  // the sequence's incremental clock
  uint32_t sequence = kDescriptorSequence;
  // The lane being written.
  uint64_t lane_uuid = 0;
  bool lane_started = false;
  std::vector<int64_t> open_ends;
  std::string label;
};

void PerfettoTraceWriter::State::emit_packet() {
  proto::bytes_field(buffer, field::kTracePacket, packet);
  packet.clear();
  if (buffer.size() >= (1u << 20)) flush();
}

void PerfettoTraceWriter::State::flush() {
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  buffer.clear();
}

// A TrackDescriptor on the descriptor sequence; `body` is a process or
// thread descriptor (field `which`), or empty.
void PerfettoTraceWriter::State::descriptor(uint64_t uuid, uint64_t parent, std::string_view name,
                                            const std::string& body, uint32_t which) {
  nested.clear();
  proto::uint_field(nested, field::kUuid, uuid);
  if (!name.empty()) proto::bytes_field(nested, field::kTrackName, name);
  if (parent) proto::uint_field(nested, field::kParentUuid, parent);
  if (!body.empty()) proto::bytes_field(nested, which, body);
  proto::uint_field(packet, field::kSequenceId, kDescriptorSequence);
  proto::bytes_field(packet, field::kTrackDescriptor, nested);
  emit_packet();
}

// The first packet of a slice sequence: fresh interning state, its default
// track, and its incremental clock starting at `first_ns` (MONOTONIC).
void PerfettoTraceWriter::State::begin_sequence(uint64_t track_uuid, int64_t first_ns) {
  proto::uint_field(packet, field::kSequenceId, sequence);
  proto::uint_field(packet, field::kSequenceFlags, kIncrementalStateCleared);
  nested.clear();
  proto::uint_field(nested, field::kDefaultClockId, kLaneClock);
  inner.clear();
  proto::uint_field(inner, field::kDefaultTrackUuid, track_uuid);
  proto::bytes_field(nested, field::kTrackEventDefaults, inner);
  proto::bytes_field(packet, field::kTracePacketDefaults, nested);
  nested.clear();
  inner.clear();
  proto::uint_field(inner, field::kClockId, kLaneClock);
  proto::uint_field(inner, field::kClockTimestamp, static_cast<uint64_t>(first_ns));
  proto::uint_field(inner, field::kClockIsIncremental, 1);
  proto::bytes_field(nested, field::kClocks, inner);
  inner.clear();
  proto::uint_field(inner, field::kClockId, kMonotonicClock);
  proto::uint_field(inner, field::kClockTimestamp, static_cast<uint64_t>(first_ns));
  proto::bytes_field(nested, field::kClocks, inner);
  proto::uint_field(nested, field::kPrimaryTraceClock, kMonotonicClock);
  proto::bytes_field(packet, field::kClockSnapshot, nested);
  emit_packet();
  last_ns = first_ns;
  next_iid = 1;
  label_iids.clear();
}

// The name's iid on this sequence (`name_id` its string id, or 0 for a
// label built on the fly); *is_new when the packet must announce it.
uint64_t PerfettoTraceWriter::State::intern(std::string_view name, uint32_t name_id, bool* is_new) {
  if (name_id != 0) {
    if (name_id >= iid.size()) {
      iid.resize(name_id + 1, 0);
      iid_stamp.resize(name_id + 1, 0);
    }
    *is_new = iid_stamp[name_id] != sequence;
    if (*is_new) {
      iid_stamp[name_id] = sequence;
      iid[name_id] = static_cast<uint32_t>(next_iid++);
    }
    return iid[name_id];
  }
  auto [it, added] = label_iids.try_emplace(std::string(name), 0);
  *is_new = added;
  if (added) it->second = next_iid++;
  return it->second;
}

// A slice begin (with its name and flows) or end on the sequence's track.
void PerfettoTraceWriter::State::slice_event(int64_t at_ns, uint64_t type, std::string_view name,
                                             uint32_t name_id, std::span<const uint32_t> launched,
                                             uint64_t terminating_flow) {
  proto::uint_field(packet, field::kTimestamp, static_cast<uint64_t>(at_ns - last_ns));
  last_ns = at_ns;
  proto::uint_field(packet, field::kSequenceId, sequence);
  event.clear();
  proto::uint_field(event, field::kType, type);
  if (type == kSliceBegin) {
    bool is_new = false;
    const uint64_t name_iid = intern(name, name_id, &is_new);
    if (is_new) {
      inner.clear();
      proto::uint_field(inner, field::kIid, name_iid);
      proto::bytes_field(inner, field::kEventName, name);
      nested.clear();
      proto::bytes_field(nested, field::kEventNames, inner);
      proto::bytes_field(packet, field::kInternedData, nested);
    }
    proto::uint_field(event, field::kNameIid, name_iid);
    // Flow ids are node ids + 1: unique in the trace, merged ones too.
    for (uint32_t id : launched) proto::fixed64_field(event, field::kFlowIds, uint64_t{id} + 1);
    if (terminating_flow) proto::fixed64_field(event, field::kTerminatingFlowIds, terminating_flow);
  }
  proto::bytes_field(packet, field::kTrackEvent, event);
  emit_packet();
}

PerfettoTraceWriter::PerfettoTraceWriter(const Trace& header, size_t name_ids, std::ostream& out)
    : s_(std::make_unique<State>(header, name_ids, out)) {}

PerfettoTraceWriter::~PerfettoTraceWriter() = default;

void PerfettoTraceWriter::add_thread(uint32_t tid, size_t lanes) {
  tracks_.push_back({false, tid, 0, lanes});
}

void PerfettoTraceWriter::add_stream(uint32_t device, uint32_t stream, size_t lanes) {
  tracks_.push_back({true, device, stream, lanes});
}

void PerfettoTraceWriter::descriptors() {
  State& s = *s_;
  for (const ThreadInfo& info : s.t.threads) {
    const bool added = std::any_of(tracks_.begin(), tracks_.end(), [&](const Track& track) {
      return !track.stream && track.id == info.tid;
    });
    if (!added) add_thread(info.tid, 0);
  }
  // Threads and range lanes by id, then streams by (device, stream).
  std::stable_sort(tracks_.begin(), tracks_.end(), [](const Track& a, const Track& b) {
    if (a.stream != b.stream) return b.stream;
    if (a.id != b.id) return a.id < b.id;
    return a.stream_id < b.stream_id;
  });
  s.ids.resize(tracks_.size());
  for (size_t i = 0; i < tracks_.size(); ++i) {
    const Track& track = tracks_[i];
    State::TrackIds& ids = s.ids[i];
    ids.uuid = s.next_uuid++;
    if (track.stream) {
      ids.name = "Stream " + std::to_string(track.stream_id);
      continue;
    }
    ids.name = "Thread " + std::to_string(track.id);
    for (const ThreadInfo& info : s.t.threads)
      if (info.tid == track.id && !info.name.empty()) ids.name = info.name;
  }
  for (size_t i = 0; i < tracks_.size(); ++i) {
    s.ids[i].lane_uuids.push_back(s.ids[i].uuid);
    for (size_t lane = 1; lane < tracks_[i].lanes; ++lane)
      s.ids[i].lane_uuids.push_back(s.next_uuid++);
  }

  std::string body;
  for (const SourceProcesses::Process& p : s.processes.list()) {
    s.process_uuids.push_back(s.next_uuid++);
    body.clear();
    proto::int_field(body, field::kPid, p.pid);
    proto::bytes_field(body, field::kProcessName, p.name);
    s.descriptor(s.process_uuids.back(), 0, {}, body, field::kProcess);
  }
  std::map<uint32_t, uint64_t> gpu_uuids;
  for (size_t i = 0; i < tracks_.size(); ++i) {
    const Track& track = tracks_[i];
    State::TrackIds& ids = s.ids[i];
    if (track.stream) {
      auto [gpu, added] = gpu_uuids.try_emplace(track.id, 0);
      if (added) {
        gpu->second = s.next_uuid++;
        s.descriptor(gpu->second, 0, gpu_track_name(s.t, track.id), {}, 0);
      }
      ids.parent_uuid = gpu->second;
      s.descriptor(ids.uuid, ids.parent_uuid, ids.name, {}, 0);
      continue;
    }
    const size_t process = s.processes.index_of(track.id);
    ids.parent_uuid = s.process_uuids[process];
    if (is_range_lane(track.id)) {  // annotations, not an OS thread: a row of the process
      s.descriptor(ids.uuid, ids.parent_uuid, ids.name, {}, 0);
      continue;
    }
    body.clear();
    proto::int_field(body, field::kPid, s.processes.list()[process].pid);
    proto::int_field(body, field::kTid, track.id);
    proto::bytes_field(body, field::kThreadName, ids.name);
    s.descriptor(ids.uuid, 0, {}, body, field::kThread);
  }
  for (const State::TrackIds& ids : s.ids)
    for (size_t lane = 1; lane < ids.lane_uuids.size(); ++lane)
      s.descriptor(ids.lane_uuids[lane], ids.parent_uuid,
                   ids.name + " (overlapping " + std::to_string(lane + 1) + ")", {}, 0);
  if (!s.t.diagnostics.capture_windows.empty()) {
    s.capture_uuid = s.next_uuid++;
    s.descriptor(s.capture_uuid, s.process_uuids.front(), "capture windows", {}, 0);
  }
  memory_descriptors(gpu_uuids);
  program_counter_descriptors();
}

// The program's counters (brickprof_counter) and its tokens so far, a
// counter track each under the reporting thread's process, as the Chrome
// export's.
void PerfettoTraceWriter::program_counter_descriptors() {
  State& s = *s_;
  std::string counter;
  for (const CounterSample& c : s.t.counters) {
    const size_t process = s.processes.index_of(c.thread);
    auto [it, added] = s.program_counter_uuids.try_emplace({process, c.kind, c.name}, 0);
    if (!added) continue;
    it->second = s.next_uuid++;
    // Tokens are a count; a program's counter has no unit we know (the
    // field is still written: an empty descriptor would not make a counter track).
    counter.clear();
    proto::uint_field(counter, field::kUnit, c.kind == CounterKind::kTokens ? kUnitCount : 0);
    s.descriptor(it->second, s.process_uuids[process], s.t.strings.view(c.name), counter,
                 field::kCounter);
  }
}

// A counter track per memory account (memory_accounts.h), under its GPU
// (one is described here for a GPU with memory but no GPU work), the
// host's under its process.
void PerfettoTraceWriter::memory_descriptors(std::map<uint32_t, uint64_t>& gpu_uuids) {
  State& s = *s_;
  if (s.t.memory.empty()) return;
  MemoryAccounts accounts(s.t);
  walk_memory_live(s.t, accounts, [](uint32_t, int64_t, uint64_t) {});
  std::string counter;
  proto::uint_field(counter, field::kUnit, kUnitSizeBytes);
  for (const MemoryAccountKey& key : accounts.keys()) {
    uint64_t parent = s.process_uuids[std::min<size_t>(key.source, s.process_uuids.size() - 1)];
    if (key.device != kHostDeviceId) {
      auto [gpu, added] = gpu_uuids.try_emplace(key.device, 0);
      if (added) {
        gpu->second = s.next_uuid++;
        s.descriptor(gpu->second, 0, gpu_track_name(s.t, key.device), {}, 0);
      }
      parent = gpu->second;
    }
    s.memory_uuids.push_back(s.next_uuid++);
    s.descriptor(s.memory_uuids.back(), parent, account_label(s.t, key), counter, field::kCounter);
  }
}

void PerfettoTraceWriter::begin_lane(size_t track, size_t lane) {
  State& s = *s_;
  ++s.sequence;
  s.lane_uuid = s.ids[track].lane_uuids[lane];
  s.lane_started = false;
  s.open_ends.clear();
}

void PerfettoTraceWriter::slice(uint32_t id, const Node& n, std::string_view name, uint32_t name_id,
                                const GpuDetail* detail, std::span<const uint32_t> launched,
                                bool from_cpu) {
  State& s = *s_;
  if (!s.lane_started) {
    s.begin_sequence(s.lane_uuid, n.start_ns);
    s.lane_started = true;
  }
  while (!s.open_ends.empty() && s.open_ends.back() <= n.start_ns) {
    s.slice_event(s.open_ends.back(), kSliceEnd, {}, 0, {}, 0);
    s.open_ends.pop_back();
  }
  // As every text output names it; node_label allocates, so only where
  // the name is not the label already.
  if (name.empty() || n.kind == NodeKind::kTransfer || n.kind == NodeKind::kMemset) {
    s.label = node_label(name, n, detail);
    name = s.label;
    name_id = 0;
  }
  s.slice_event(n.start_ns, kSliceBegin, name, name_id, launched, from_cpu ? uint64_t{id} + 1 : 0);
  s.open_ends.push_back(n.end_ns);
}

void PerfettoTraceWriter::end_lane() {
  State& s = *s_;
  while (!s.open_ends.empty()) {
    s.slice_event(s.open_ends.back(), kSliceEnd, {}, 0, {}, 0);
    s.open_ends.pop_back();
  }
}

void PerfettoTraceWriter::finish() {
  State& s = *s_;
  const std::vector<TimeRange>& windows = s.t.diagnostics.capture_windows;
  if (s.capture_uuid) {
    ++s.sequence;
    s.begin_sequence(s.capture_uuid, windows.front().start_ns);
    for (size_t i = 0; i < windows.size(); ++i) {
      s.slice_event(windows[i].start_ns, kSliceBegin, "capture window " + std::to_string(i + 1), 0,
                    {}, 0);
      s.slice_event(windows[i].end_ns, kSliceEnd, {}, 0, {}, 0);
    }
  }
  if (!s.memory_uuids.empty()) {  // every account's samples on one sequence, in time order
    ++s.sequence;
    bool started = false;
    MemoryAccounts accounts(s.t);
    walk_memory_live(s.t, accounts, [&](uint32_t account, int64_t t, uint64_t live) {
      if (!started) {
        s.begin_sequence(s.memory_uuids[account], t);
        started = true;
      }
      proto::uint_field(s.packet, field::kTimestamp, static_cast<uint64_t>(t - s.last_ns));
      s.last_ns = t;
      proto::uint_field(s.packet, field::kSequenceId, s.sequence);
      s.event.clear();
      proto::uint_field(s.event, field::kType, kCounterEvent);
      proto::uint_field(s.event, field::kTrackUuid, s.memory_uuids[account]);
      proto::uint_field(s.event, field::kCounterValue, live);
      proto::bytes_field(s.packet, field::kTrackEvent, s.event);
      s.emit_packet();
    });
  }
  if (!s.program_counter_uuids.empty()) {  // every sample on one sequence, in time order
    ++s.sequence;
    s.begin_sequence(s.program_counter_uuid(s.t.counters.front()), s.t.counters.front().time_ns);
    std::map<size_t, double> tokens;  // by process, so far
    for (const CounterSample& c : s.t.counters) {
      proto::uint_field(s.packet, field::kTimestamp, static_cast<uint64_t>(c.time_ns - s.last_ns));
      s.last_ns = c.time_ns;
      proto::uint_field(s.packet, field::kSequenceId, s.sequence);
      s.event.clear();
      proto::uint_field(s.event, field::kType, kCounterEvent);
      proto::uint_field(s.event, field::kTrackUuid, s.program_counter_uuid(c));
      const double value = c.kind == CounterKind::kTokens
                               ? tokens[s.processes.index_of(c.thread)] += c.value
                               : c.value;
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      proto::fixed64_field(s.event, field::kDoubleCounterValue, bits);
      proto::bytes_field(s.packet, field::kTrackEvent, s.event);
      s.emit_packet();
    }
  }
  s.flush();
}

}  // namespace brickprof
