// The HTML timeline as the page reads it: columns of equal length, starts
// and node ids delta-coded per lane, names through one string table.
#include <map>
#include <string>

#include "analysis/html/html_timeline.h"
#include "trace/model/format.h"

namespace brickprof {
namespace {

void write_lane(const TimelineLane& lane, JsonWriter& w) {
  w.begin_object();
  switch (lane.kind) {
    case TimelineLane::Kind::kThread:
      w.field("kind", "thread").field("name", lane.name).field("tid", lane.tid);
      break;
    case TimelineLane::Kind::kRange:
      w.field("kind", "range").field("name", lane.name).field("device", lane.device);
      w.field("tid", lane.tid);
      break;
    case TimelineLane::Kind::kStream:
      w.field("kind", "stream").field("name", lane.name).field("device", lane.device);
      w.field("stream", lane.stream);
      break;
  }
  w.field("count", lane.count).end_object();
}

// A column of one figure per slice.
template <typename Figure>
void column(JsonWriter& w, const char* key, const std::vector<TimelineSlice>& slices,
            Figure figure) {
  w.key(key).begin_array();
  for (size_t i = 0; i < slices.size(); ++i) w.value(figure(i));
  w.end_array();
}

void write_reduction(const TimelineReduction& r, JsonWriter& w) {
  std::string how = std::to_string(r.kept) + " of " + std::to_string(r.of) +
                    " slices as recorded (" + format_duration(r.threshold_ns) +
                    " or longer, or alone between gaps); the other " +
                    std::to_string(r.of - r.kept) + " merged into " + std::to_string(r.merged) +
                    " slices, one per run of short neighbours";
  w.begin_object();
  w.field("kept", uint64_t{r.kept}).field("of", uint64_t{r.of});
  w.field("merged", uint64_t{r.merged}).field("threshold_ns", r.threshold_ns);
  w.field("how", how).end_object();
}

}  // namespace

void write_html_timeline(const Trace& t, const HtmlTimeline& tl, JsonWriter& w) {
  const std::vector<TimelineSlice>& slices = tl.slices;
  // Names in order of first use.
  std::vector<int64_t> index_of(t.strings.size(), -1);
  std::vector<StringId> strings;
  std::vector<int64_t> name(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    const StringId id = t.nodes[slices[i].node].name;
    if (index_of[id] < 0) {
      index_of[id] = static_cast<int64_t>(strings.size());
      strings.push_back(id);
    }
    name[i] = index_of[id];
  }
  // Starts and node ids (the file's: Trace::file_id) as differences from
  // the previous slice of the lane.
  std::vector<int64_t> start(slices.size()), node(slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    const bool first = i == 0 || slices[i - 1].lane != slices[i].lane;
    start[i] = slices[i].start - (first ? 0 : slices[i - 1].start);
    node[i] =
        int64_t{t.file_id(slices[i].node)} - (first ? 0 : int64_t{t.file_id(slices[i - 1].node)});
  }

  w.begin_object();
  w.field("t0_ns", tl.t0_ns).field("span_ns", tl.span_ns);
  // Slice kinds are indices of NodeKind.
  w.key("kinds").begin_array();
  for (int k = 0; k <= static_cast<int>(NodeKind::kSync); ++k)
    w.value(to_string(static_cast<NodeKind>(k)));
  w.end_array();
  w.key("strings").begin_array();
  for (StringId id : strings) w.value(t.strings.view(id));
  w.end_array();
  // The trace's devices by id (an id listed twice: its last name).
  std::map<uint32_t, std::string_view> devices;
  for (const Device& d : t.devices) devices[d.id] = d.name;
  w.key("devices").begin_array();
  for (const auto& [id, device_name] : devices)
    w.begin_object().field("id", id).field("name", device_name).end_object();
  w.end_array();
  w.key("lanes").begin_array();
  for (const TimelineLane& lane : tl.lanes) write_lane(lane, w);
  w.end_array();

  w.key("slices").begin_object();
  column(w, "start", slices, [&](size_t i) { return start[i]; });
  column(w, "dur", slices, [&](size_t i) { return slices[i].dur; });
  column(w, "depth", slices, [&](size_t i) { return slices[i].depth; });
  column(w, "name", slices, [&](size_t i) { return name[i]; });
  column(w, "kind", slices,
         [&](size_t i) { return static_cast<int>(t.nodes[slices[i].node].kind); });
  column(w, "node", slices, [&](size_t i) { return node[i]; });
  if (tl.reduced) column(w, "merged", slices, [&](size_t i) { return slices[i].merged; });
  w.end_object();

  w.key("flows").begin_object();
  w.key("from").begin_array();
  for (const TimelineFlow& f : tl.flows) w.value(f.from);
  w.end_array().key("to").begin_array();
  for (const TimelineFlow& f : tl.flows) w.value(f.to);
  w.end_array().key("at").begin_array();
  for (const TimelineFlow& f : tl.flows) w.value(f.at);
  w.end_array().end_object();

  w.key("windows").begin_array();
  for (const TimeRange& r : t.diagnostics.capture_windows)
    w.begin_array().value(r.start_ns - tl.t0_ns).value(r.end_ns - tl.t0_ns).end_array();
  w.end_array();
  w.key("sampled");
  if (tl.reduced)
    write_reduction(*tl.reduced, w);
  else
    w.null();
  w.end_object();
}

}  // namespace brickprof
