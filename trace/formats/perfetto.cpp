// The Perfetto trace's sink (see export_perfetto.h): tracks and lanes from
// the producer's TrackWalker, packets through PerfettoTraceWriter
// (export_perfetto_writer.cpp).
#include <map>
#include <tuple>

#include "trace/formats/perfetto.h"

namespace brickprof {

void PerfettoSink::tracks(TrackWalker& walker) {
  PerfettoTraceWriter writer(*header_, name_ids_, out_);
  const std::vector<TrackWalker::Track>& tracks = walker.tracks();
  std::map<std::tuple<bool, uint32_t, uint32_t>, size_t> walked;  // the walker's index of a track
  for (size_t i = 0; i < tracks.size(); ++i) {
    const TrackWalker::Track& t = tracks[i];
    LaneSplitter splitter;
    walker.times(i, [&](int64_t start, int64_t end) { splitter.place(start, end); });
    if (t.stream)
      writer.add_stream(t.id, t.stream_id, splitter.lanes());
    else
      writer.add_thread(t.id, splitter.lanes());
    walked[{t.stream, t.id, t.stream ? t.stream_id : 0}] = i;
  }
  writer.descriptors();
  const std::vector<PerfettoTraceWriter::Track>& written = writer.tracks();
  for (size_t t = 0; t < written.size(); ++t) {
    const PerfettoTraceWriter::Track& track = written[t];
    if (track.lanes == 0) continue;
    const size_t index = walked.at({track.stream, track.id, track.stream ? track.stream_id : 0});
    for (size_t lane = 0; lane < track.lanes; ++lane) {
      writer.begin_lane(t, lane);
      LaneSplitter splitter;  // places each slice again: the lane it took when counted
      walker.slices(index, [&](const SliceEvent& e) {
        if (track.lanes == 1 || splitter.place(e.node.start_ns, e.node.end_ns) == lane)
          writer.slice(e.id, e.node, e.name, e.name_id, e.detail, e.launched, e.from_cpu);
      });
      writer.end_lane();
    }
  }
  writer.finish();
}

}  // namespace brickprof
