// Writes Perfetto's protobuf trace of a whole Trace (see export_perfetto.h):
// the nodes sorted onto tracks and split into lanes, then written through
// PerfettoTraceWriter (export_perfetto_writer.cpp). Slices that overlap
// without nesting (possible in merged or hand-written traces) go to extra
// lanes under the same parent, so every begin is closed by its own end.
#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "trace/formats/perfetto.h"

namespace brickprof {
namespace {

bool on_gpu(const Trace& t, const Node& n) { return t.detail(n) && is_gpu_kind(n.kind); }

// Whether a flow links the node's launching scope to it (as in the Chrome export).
bool launched_from_cpu(const Trace& t, const Node& n) {
  return on_gpu(t, n) && n.parent < t.nodes.size() && is_cpu_kind(t.nodes[n.parent].kind);
}

// A track's nodes, by lane, each in slice_precedes order.
using Lanes = std::vector<std::vector<uint32_t>>;

Lanes split_into_lanes(const Trace& t, std::vector<uint32_t>& nodes) {
  std::sort(nodes.begin(), nodes.end(), [&](uint32_t a, uint32_t b) {
    const Node& x = t.nodes[a];
    const Node& y = t.nodes[b];
    return slice_precedes(x.start_ns, x.end_ns, a, y.start_ns, y.end_ns, b);
  });
  Lanes lanes;
  LaneSplitter splitter;
  for (uint32_t id : nodes) {
    const size_t lane = splitter.place(t.nodes[id].start_ns, t.nodes[id].end_ns);
    if (lane == lanes.size()) lanes.emplace_back();
    lanes[lane].push_back(id);
  }
  return lanes;
}

}  // namespace

void write_perfetto_trace(const Trace& t, std::ostream& out) {
  std::map<uint32_t, std::vector<uint32_t>> threads;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> streams;
  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    const Node& n = t.nodes[id];
    if (on_gpu(t, n)) {
      const GpuDetail& g = *t.detail(n);
      streams[{g.device, g.stream}].push_back(id);
    } else {
      threads[n.thread].push_back(id);
    }
  }
  PerfettoTraceWriter writer(t, t.strings.size(), out);
  std::map<uint32_t, Lanes> thread_lanes;
  std::map<std::pair<uint32_t, uint32_t>, Lanes> stream_lanes;
  for (auto& [tid, nodes] : threads) {
    Lanes& lanes = thread_lanes[tid] = split_into_lanes(t, nodes);
    writer.add_thread(tid, lanes.size());
  }
  for (auto& [key, nodes] : streams) {
    Lanes& lanes = stream_lanes[key] = split_into_lanes(t, nodes);
    writer.add_stream(key.first, key.second, lanes.size());
  }
  threads.clear();
  streams.clear();

  // Flows: for each CPU node, the GPU nodes it launched (CSR).
  const size_t n = t.nodes.size();
  std::vector<uint32_t> launch_begin(n + 1, 0), launched;
  for (const Node& node : t.nodes)
    if (launched_from_cpu(t, node)) ++launch_begin[node.parent + 1];
  for (size_t i = 0; i < n; ++i) launch_begin[i + 1] += launch_begin[i];
  launched.resize(launch_begin[n]);
  std::vector<uint32_t> fill(launch_begin.begin(), launch_begin.end() - 1);
  for (uint32_t id = 0; id < n; ++id)
    if (launched_from_cpu(t, t.nodes[id])) launched[fill[t.nodes[id].parent]++] = id;

  writer.descriptors();
  const std::vector<PerfettoTraceWriter::Track>& tracks = writer.tracks();
  for (size_t i = 0; i < tracks.size(); ++i) {
    const PerfettoTraceWriter::Track& track = tracks[i];
    const Lanes& lanes =
        track.stream ? stream_lanes[{track.id, track.stream_id}] : thread_lanes[track.id];
    for (size_t lane = 0; lane < lanes.size(); ++lane) {
      writer.begin_lane(i, lane);
      for (uint32_t id : lanes[lane]) {
        const Node& node = t.nodes[id];
        const std::span<const uint32_t> flows(launched.data() + launch_begin[id],
                                              launch_begin[id + 1] - launch_begin[id]);
        writer.slice(id, node, t.name(node), node.name, t.detail(node), flows,
                     launched_from_cpu(t, node));
      }
      writer.end_lane();
    }
  }
  writer.finish();
}

}  // namespace brickprof
