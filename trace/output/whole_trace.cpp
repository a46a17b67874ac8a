// A held Trace feeding the format sinks (see whole_trace.h).
#include "trace/output/whole_trace.h"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "trace/derive/cpu_work.h"
#include "trace/derive/stats.h"
#include "trace/formats/distributed_info.h"
#include "trace/formats/perfetto.h"

namespace brickprof {
namespace {

bool on_gpu(const Trace& t, const Node& n) { return t.detail(n) && is_gpu_kind(n.kind); }

// Whether a flow links the node's launching scope to it (as in the Chrome trace).
bool launched_from_cpu(const Trace& t, const Node& n) {
  return on_gpu(t, n) && n.parent < t.nodes.size() && is_cpu_kind(t.nodes[n.parent].kind);
}

// The trace's tracks, each its node ids in slice_precedes order, and for
// each CPU node the GPU work it launched (CSR).
class WholeTraceTracks : public TrackWalker {
 public:
  explicit WholeTraceTracks(const Trace& t) : t_(t) {
    std::map<uint32_t, std::vector<uint32_t>> threads;
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> streams;
    for (uint32_t id = 0; id < t.nodes.size(); ++id) {
      const Node& n = t.nodes[id];
      if (on_gpu(t, n))
        streams[{t.detail(n)->device, t.detail(n)->stream}].push_back(id);
      else
        threads[n.thread].push_back(id);
    }
    for (auto& [tid, ids] : threads) add({false, tid, 0}, std::move(ids));
    for (auto& [key, ids] : streams) add({true, key.first, key.second}, std::move(ids));
    const size_t n = t.nodes.size();
    launch_begin_.assign(n + 1, 0);
    for (const Node& node : t.nodes)
      if (launched_from_cpu(t, node)) ++launch_begin_[node.parent + 1];
    for (size_t i = 0; i < n; ++i) launch_begin_[i + 1] += launch_begin_[i];
    launched_.resize(launch_begin_[n]);
    std::vector<uint32_t> fill(launch_begin_.begin(), launch_begin_.end() - 1);
    for (uint32_t id = 0; id < n; ++id)
      if (launched_from_cpu(t, t.nodes[id])) launched_[fill[t.nodes[id].parent]++] = id;
  }

  const std::vector<Track>& tracks() override { return tracks_; }

  void times(size_t track, const std::function<void(int64_t, int64_t)>& visit) override {
    for (uint32_t id : ids_[track]) visit(t_.nodes[id].start_ns, t_.nodes[id].end_ns);
  }

  void slices(size_t track, const std::function<void(const SliceEvent&)>& visit) override {
    for (uint32_t id : ids_[track]) {
      const Node& node = t_.nodes[id];
      const std::span<const uint32_t> flows(launched_.data() + launch_begin_[id],
                                            launch_begin_[id + 1] - launch_begin_[id]);
      visit({id, node, t_.name(node), node.name, t_.detail(node), flows,
             launched_from_cpu(t_, node)});
    }
  }

 private:
  void add(Track track, std::vector<uint32_t> ids) {
    std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
      const Node& x = t_.nodes[a];
      const Node& y = t_.nodes[b];
      return slice_precedes(x.start_ns, x.end_ns, a, y.start_ns, y.end_ns, b);
    });
    tracks_.push_back(track);
    ids_.push_back(std::move(ids));
  }

  const Trace& t_;
  std::vector<Track> tracks_;
  std::vector<std::vector<uint32_t>> ids_;
  std::vector<uint32_t> launch_begin_, launched_;
};

}  // namespace

struct WholeTrace::Built {
  std::optional<std::set<uint32_t>> node_threads;
  std::set<std::pair<uint32_t, uint32_t>> streams;
  bool nccl_kernels = false;
  std::optional<AggregateTree> aggregate;
  std::unique_ptr<WholeTraceTracks> tracks;
  std::optional<TraceStats> stats;
};

WholeTrace::WholeTrace(const Trace& trace) : t_(trace), built_(std::make_unique<Built>()) {}

WholeTrace::~WholeTrace() = default;

void WholeTrace::feed(TraceSink& sink) {
  const Trace& t = t_;
  Built& b = *built_;
  const unsigned needs = sink.needs();
  if (!b.node_threads) {
    b.node_threads.emplace();
    for (const Node& node : t.nodes) {
      if (const GpuDetail* g = t.detail(node); g && is_gpu_kind(node.kind))
        b.streams.emplace(g->device, g->stream);
      else
        b.node_threads->insert(node.thread);
    }
    b.nccl_kernels = ran_communication_kernels(t);
  }
  sink.begin({t, *b.node_threads, b.streams, b.nccl_kernels, t.strings.size()});
  const uint32_t n = static_cast<uint32_t>(t.nodes.size());
  const auto event = [&](uint32_t id, const CommCall* call) {
    const Node& node = t.nodes[id];
    const Node* parent =
        (needs & TraceSink::kLaunchers) && node.parent < n ? &t.nodes[node.parent] : nullptr;
    return NodeEvent{id, node, t.name(node), t.detail(node), call, parent};
  };
  if (needs & TraceSink::kNodes) {
    auto call = t.comm_calls.begin();  // sorted by node: one cursor
    for (uint32_t id = 0; id < n; ++id) {
      while (call != t.comm_calls.end() && call->node < id) ++call;
      const bool has_call = call != t.comm_calls.end() && call->node == id;
      sink.node(event(id, has_call ? &*call : nullptr));
    }
  }
  if (needs & TraceSink::kEdges)
    for (const Edge& e : t.edges) sink.edge(e);
  if ((needs & TraceSink::kCpuWork) && is_one_rank(t)) {
    // A rank measured on its CPU: its compute (cpu_work.h).
    if (std::none_of(t.nodes.begin(), t.nodes.end(),
                     [](const Node& node) { return is_device_op(node.kind); })) {
      sink.cpu_work_track();
      const std::vector<CpuWork> work = classify_cpu_work(t);
      for (uint32_t id = 0; id < n; ++id)
        if (work[id] == CpuWork::kCompute) sink.cpu_work(event(id, nullptr));
    }
    // A rank cut to its steps (report --under NAME): each outermost scope
    // so named, in time order.
    if (!t.steps_name.empty()) {
      std::vector<uint32_t> steps;
      for (uint32_t id = 0; id < n; ++id) {
        const Node& node = t.nodes[id];
        if (node.parent == kNoNode && is_cpu_kind(node.kind) && t.name(node) == t.steps_name)
          steps.push_back(id);
      }
      std::sort(steps.begin(), steps.end(),
                [&](uint32_t a, uint32_t c) { return t.nodes[a].start_ns < t.nodes[c].start_ns; });
      for (size_t k = 0; k < steps.size(); ++k) sink.step(event(steps[k], nullptr), k);
    }
  }
  if (needs & TraceSink::kAggregate) {
    if (!b.aggregate) b.aggregate = build_aggregate_tree(t);
    sink.aggregate({t, *b.aggregate, {}, nullptr});
  }
  if (needs & TraceSink::kTracks) {
    if (!b.tracks) b.tracks = std::make_unique<WholeTraceTracks>(t);
    sink.tracks(*b.tracks);
  }
  if ((needs & TraceSink::kStats) && !b.stats) b.stats = compute_stats(t);
  sink.end(b.stats ? &*b.stats : nullptr);
}

WrittenOutputs write_outputs(const Trace& trace, const std::vector<std::string>& formats,
                             OutputSink& sink) {
  WholeTrace whole(trace);
  return write_outputs(whole, formats, sink);
}

void write_format(std::string_view format, const Trace& trace, std::ostream& out) {
  const Format* f = find_format(format);
  if (!f) throw std::invalid_argument("unknown output format '" + std::string(format) + "'");
  const std::unique_ptr<TraceSink> sink = f->make(out);
  WholeTrace(trace).feed(*sink);
}

}  // namespace brickprof
