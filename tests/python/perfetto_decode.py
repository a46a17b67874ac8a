"""Decodes a Perfetto trace written by brickprof with the Perfetto project's
own proto bindings (the `perfetto` package's perfetto_trace_pb2, parsed by
`protobuf`), following the rules Perfetto's trace processor applies to the
fields brickprof writes: sequence-scoped interning and defaults,
incremental clocks tied to CLOCK_MONOTONIC by clock snapshots, slices as
begin/end pairs per track, flows by id. Anything outside those rules (an
unknown iid, an end with no open slice, a clock never defined) fails.
"""
from collections import defaultdict

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

MONOTONIC = 3
SLICE_BEGIN = pb.TrackEvent.TYPE_SLICE_BEGIN
SLICE_END = pb.TrackEvent.TYPE_SLICE_END
COUNTER = pb.TrackEvent.TYPE_COUNTER


class DecodeError(Exception):
    pass


class Sequence:
    def __init__(self):
        self.names = {}
        self.track = None
        self.clock = None
        self.clock_now = {}      # incremental clock id -> its current value
        self.clock_offset = {}   # clock id -> add this to get MONOTONIC


class Decoded:
    """tracks: uuid -> TrackDescriptor; slices: list of dicts (track, name,
    start, end, flows_out, flows_in), in the order they closed; counters:
    track uuid -> [(time, value)] in the order written."""

    def __init__(self):
        self.tracks = {}
        self.slices = []
        self.counters = defaultdict(list)

    def flows(self):
        """[(source slice, destination slice)] joined by flow id."""
        out = {}
        for s in self.slices:
            for f in s["flows_out"]:
                if f in out:
                    raise DecodeError("flow id %d begins twice" % f)
                out[f] = s
        pairs = []
        for s in self.slices:
            for f in s["flows_in"]:
                if f not in out:
                    raise DecodeError("flow id %d ends without a begin" % f)
                pairs.append((out.pop(f), s))
        if out:
            raise DecodeError("%d flows never end" % len(out))
        return pairs

    def track_key(self, uuid):
        """('thread', pid, tid) | ('track', parent key, name) | ('process', pid)."""
        d = self.tracks[uuid]
        if d.HasField("thread"):
            return ("thread", d.thread.pid, d.thread.tid)
        if d.HasField("process"):
            return ("process", d.process.pid)
        parent = self.track_key(d.parent_uuid) if d.HasField("parent_uuid") else None
        return ("track", parent, d.name)


def decode(path):
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    result = Decoded()
    sequences = defaultdict(Sequence)
    open_slices = defaultdict(list)
    for p in trace.packet:
        if not p.HasField("trusted_packet_sequence_id"):
            raise DecodeError("a packet without a sequence id")
        seq = sequences[p.trusted_packet_sequence_id]
        if p.incremental_state_cleared or p.sequence_flags & pb.TracePacket.SEQ_INCREMENTAL_STATE_CLEARED:
            seq.names = {}
        if p.HasField("trace_packet_defaults"):
            d = p.trace_packet_defaults
            seq.clock = d.timestamp_clock_id if d.HasField("timestamp_clock_id") else None
            seq.track = (d.track_event_defaults.track_uuid
                         if d.track_event_defaults.HasField("track_uuid") else None)
        if p.HasField("interned_data"):
            for n in p.interned_data.event_names:
                seq.names[n.iid] = n.name
        if p.HasField("clock_snapshot"):
            snap = p.clock_snapshot
            if snap.primary_trace_clock != MONOTONIC:
                raise DecodeError("primary trace clock is not MONOTONIC")
            mono = [c.timestamp for c in snap.clocks if c.clock_id == MONOTONIC]
            if len(mono) != 1:
                raise DecodeError("a clock snapshot without MONOTONIC")
            for c in snap.clocks:
                if c.clock_id < 64:
                    continue
                if c.unit_multiplier_ns not in (0, 1):
                    raise DecodeError("a clock in units other than ns")
                seq.clock_offset[c.clock_id] = mono[0] - c.timestamp
                if c.is_incremental:
                    seq.clock_now[c.clock_id] = c.timestamp
            continue  # trace processor reads nothing else from such a packet
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.uuid in result.tracks:
                raise DecodeError("track %d described twice" % td.uuid)
            result.tracks[td.uuid] = td
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        clock = p.timestamp_clock_id if p.HasField("timestamp_clock_id") else seq.clock
        if clock is None or clock not in seq.clock_offset:
            raise DecodeError("an event whose clock %s is not defined on its sequence" % clock)
        if clock in seq.clock_now:
            seq.clock_now[clock] += p.timestamp
            ts = seq.clock_now[clock]
        else:
            ts = p.timestamp
        ts += seq.clock_offset[clock]
        track = e.track_uuid if e.HasField("track_uuid") else seq.track
        if track is None:
            raise DecodeError("an event with no track")
        if e.type == SLICE_BEGIN:
            if e.HasField("name_iid"):
                if e.name_iid not in seq.names:
                    raise DecodeError("name iid %d not interned on sequence %d"
                                      % (e.name_iid, p.trusted_packet_sequence_id))
                name = seq.names[e.name_iid]
            else:
                name = e.name
            open_slices[track].append({"track": track, "name": name, "start": ts, "end": None,
                                       "flows_out": list(e.flow_ids),
                                       "flows_in": list(e.terminating_flow_ids)})
        elif e.type == SLICE_END:
            if not open_slices[track]:
                raise DecodeError("a slice end on track %d with no slice open" % track)
            s = open_slices[track].pop()
            if ts < s["start"]:
                raise DecodeError("a slice ends before it begins")
            s["end"] = ts
            result.slices.append(s)
        elif e.type == COUNTER:
            if e.HasField("counter_value"):
                result.counters[track].append((ts, e.counter_value))
            elif e.HasField("double_counter_value"):
                result.counters[track].append((ts, e.double_counter_value))
            else:
                raise DecodeError("a counter event without a value")
        else:
            raise DecodeError("unexpected track event type %d" % e.type)
    for track, stack in open_slices.items():
        if stack:
            raise DecodeError("%d slices left open on track %d" % (len(stack), track))
    for uuid, td in result.tracks.items():
        if td.HasField("parent_uuid") and td.parent_uuid not in result.tracks:
            raise DecodeError("track %d has an unknown parent" % uuid)
    for s in result.slices:
        if s["track"] not in result.tracks:
            raise DecodeError("a slice on undescribed track %d" % s["track"])
    for track in result.counters:
        if track not in result.tracks or not result.tracks[track].HasField("counter"):
            raise DecodeError("counter samples on track %d, not a counter track" % track)
    return result
