// The streamed exit write (see trace_stream.h for the design): the plan
// (pass 1) and the writers of each format; the walk (pass 2) is in
// trace_stream_walk.cpp.
#include "agent/io/trace_stream.h"

#include <algorithm>
#include <stdexcept>

#include "agent/io/trace_stream_impl.h"
#include "agent/recorder/budget.h"
#include "trace/formats/chrome.h"
#include "trace/formats/dot.h"
#include "trace/formats/folded.h"
#include "trace/formats/tree.h"
#include "trace/json/trace_json_parts.h"
#include "trace/model/bricks.h"

namespace brickprof::agent {
namespace {

// Pass 1's view of a thread: only what attribution, ranges and the Python
// frames' grouping need.
struct Planner {
  GpuAttribution& gpu;
  uint32_t tid;
  std::vector<RangeStart>& range_starts;
  RangeEnds& range_ends;
  std::vector<int64_t>& python_roots;  // this thread's entry in PythonGroups::roots
  bool launched_outside = false;       // a launch with a Python stack outside every scope

  void open(uint32_t, uint32_t parent, const Opened& o) {
    // A run of launches grouped under their frames ends at a root scope:
    // the first one after each launch that may be grouped is all it takes.
    if (parent == kNoNode && launched_outside) {
      python_roots.push_back(o.start_ns);
      launched_outside = false;
    }
  }
  void close(uint32_t, int64_t, bool) {}
  void work(uint32_t, double, double) {}
  void launch(uint64_t correlation, uint32_t top, int64_t api_start_ns, int64_t api_end_ns,
              uint32_t python_stack) {
    gpu.launch(correlation, top, tid, api_start_ns, api_end_ns, python_stack);
    launched_outside |= top == kNoNode && python_stack != kNoPythonStack;
  }
  void graph_node(uint64_t graph_node_id, uint32_t top) { gpu.graph_node(graph_node_id, top); }
  void range_start(uint64_t range_id, uint64_t tsc, uint32_t site) {
    range_starts.push_back({range_id, tsc, site});
  }
  void range_end(uint64_t range_id, uint64_t tsc) { range_ends.emplace_back(range_id, tsc); }
  void consumed(const Recorder::Segment&) {}
};

}  // namespace

void TraceStream::Impl::plan() {
  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;
  first_id.reserve(threads.size());
  for (const Recorder::ThreadEvents& te : threads) {
    first_id.push_back(cpu_count);
    Planner planner{gpu, te.tid, range_starts, range_ends, python.roots[te.tid]};
    ThreadWalk<Planner> walk(te, cpu_count, clock, end_tsc, windows, counts);
    walk.run(planner);
    if (walk.next_id() != cpu_count) node_threads.insert(te.tid);
    cpu_count = walk.next_id();
  }
  for (auto it = python.roots.begin(); it != python.roots.end();) {
    if (it->second.empty()) {
      it = python.roots.erase(it);
    } else {
      std::sort(it->second.begin(), it->second.end());  // a thread that registered again
      ++it;
    }
  }
  ranges = place_ranges(range_starts, range_ends, clock, end_tsc, windows, counts, &range_lanes);
  for (const PlacedRange& r : ranges) node_threads.insert(kRangeLaneBase + r.lane);
  // GPU work's launching threads are not listed (as the whole-Trace write
  // never did): a thread is listed for the CPU nodes on it.
  gpu.finish(cpu_count + static_cast<uint32_t>(ranges.size()));
}

void TraceStream::Impl::aggregate_or_throw(const char* format) const {
  if (aggregate_full)
    throw std::runtime_error(std::string(format) +
                             ": not written, its aggregate tree did not fit BRICKPROF_BUFFER_MB "
                             "(brickprof report writes it from the JSON trace)");
}

void TraceStream::Impl::write_folded(std::ostream& out) {
  aggregate_or_throw("folded");
  if (!charge(kFoldedEntryBytes * tree.nodes.size()))
    throw std::runtime_error(
        "folded: not written, its stacks did not fit BRICKPROF_BUFFER_MB (brickprof report "
        "writes it from the JSON trace)");
  brickprof::write_folded(exemplars, tree, out);
}

void TraceStream::Impl::write_tree(std::ostream& out) {
  aggregate_or_throw("tree");
  brickprof::write_tree(exemplars, tree, out);
}

void TraceStream::Impl::write_dot(std::ostream& out) {
  aggregate_or_throw("dot");
  brickprof::write_dot(exemplars, tree, out);
}

uint32_t TraceStream::Impl::thread_of(uint32_t id) const {
  auto after = std::upper_bound(first_id.begin(), first_id.end(), id);
  return threads[static_cast<size_t>(after - first_id.begin()) - 1].tid;
}

Node TraceStream::Impl::cpu_node(uint32_t id, const SpilledNode& r, uint32_t tid,
                                 std::string_view* name, std::optional<CommCall>* call) {
  (void)id;
  const SiteInfo info = Recorder::site(r.site);
  Node n;
  n.kind = info.kind;
  n.thread = tid;
  n.parent = r.parent;
  n.start_ns = r.start_ns;
  n.end_ns = r.end_ns;
  if (n.kind == NodeKind::kLayer) {
    n.layer_index = static_cast<int32_t>(r.arg);
    *name = exemplar_text(layer_name(r.arg));
  } else {
    n.elements = written_elements(r.arg, call);
    *name = info.name;
  }
  if (n.kind == NodeKind::kBrick) n.brick_id = info.brick_id;
  n.category = info.category;  // bricks; scopes of communication (MPI calls)
  n.flops = r.flops;
  n.bytes_moved = r.bytes_moved;
  return n;
}

Node TraceStream::Impl::range_node(size_t i, std::string_view* name) {
  const PlacedRange& p = ranges[i];
  const SiteInfo info = Recorder::site(p.site);
  Node n;
  n.kind = info.kind == NodeKind::kBrick ? NodeKind::kBrick : NodeKind::kScope;
  n.brick_id = info.brick_id;
  n.category = info.category;
  n.start_ns = p.start_ns;
  n.end_ns = p.end_ns;
  n.thread = kRangeLaneBase + p.lane;
  *name = info.name;
  return n;
}

void TraceStream::Impl::write_json(std::ostream& out) {
  JsonWriter w(out);
  write_trace_json_head(w, header);
  w.key("nodes").begin_array();
  each_cpu_node([&](uint32_t id, const Node& n, std::string_view name, const CommCall* call) {
    write_trace_json_node(w, id, n, name, nullptr, call);
  });
  for (size_t i = 0; i < ranges.size(); ++i) {
    std::string_view name;
    const Node n = range_node(i, &name);
    write_trace_json_node(w, cpu_count + static_cast<uint32_t>(i), n, name, nullptr);
  }
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id != kNoNode) write_trace_json_node(w, r.id, r.node, gpu.name(r), &r.detail);
  }
  w.end_array();
  w.key("edges").begin_array();
  spill.scan([&](uint32_t id, const SpilledNode& r) {
    if (r.parent != kNoNode) write_trace_json_edge(w, Edge{r.parent, id, EdgeType::kContains});
  });
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id != kNoNode && r.node.parent != kNoNode)
      write_trace_json_edge(w, Edge{r.node.parent, r.id, EdgeType::kLaunches});
  }
  w.end_array();
  write_trace_json_python(w, header.python_frames, header.python_stacks);
  write_trace_json_tail(w, header.ptx, stats);
}

void TraceStream::Impl::write_chrome(std::ostream& out) {
  std::set<uint32_t> tracks = node_threads;  // and the threads of the Python frames' scopes
  for (const auto& [tid, scopes] : python.by_thread) tracks.insert(tid);
  std::set<std::pair<uint32_t, uint32_t>> streams;
  bool nccl_kernels = false;
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id == kNoNode) continue;
    streams.emplace(r.detail.device, r.detail.stream);
    nccl_kernels |= r.node.kind == NodeKind::kKernel && is_communication_kernel(gpu.name(r));
  }
  ChromeTraceWriter chrome(header, out);
  chrome.begin(tracks, streams, nccl_kernels);
  each_cpu_node([&](uint32_t id, const Node& n, std::string_view name, const CommCall* call) {
    chrome.node(id, n, name, nullptr, nullptr, call);
  });
  for (size_t i = 0; i < ranges.size(); ++i) {
    std::string_view name;
    const Node n = range_node(i, &name);
    chrome.node(cpu_count + static_cast<uint32_t>(i), n, name, nullptr, nullptr);
  }
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id == kNoNode) continue;
    Node parent;
    Node node = r.node;
    if (python.grouped(i)) {
      parent = python_node(python.scope_of[i]);
      node.parent = python.id(python.scope_of[i]);
    } else if (r.node.parent != kNoNode) {
      std::string_view unused;
      parent = cpu_node(r.node.parent, spill.get(r.node.parent), thread_of(r.node.parent), &unused);
    }
    chrome.node(r.id, node, gpu.name(r), &r.detail, node.parent != kNoNode ? &parent : nullptr);
  }
  for (uint32_t s = 0; s < python.scopes.size(); ++s)
    chrome.node(python.id(s), python_node(s), exemplar_text(python.names[s]), nullptr, nullptr);
  chrome.end();
}

TraceStream::TraceStream(std::vector<Recorder::ThreadEvents> threads, const Clock& clock,
                         uint64_t end_tsc, std::vector<capture::Window> windows, GpuDump* gpu,
                         bool consume, const std::string& spill_dir)
    : impl_(std::make_unique<Impl>(std::move(threads), clock, end_tsc, std::move(windows), gpu,
                                   consume)) {
  impl_->plan();
  if (!impl_->spill.open(impl_->cpu_count, spill_dir, &impl_->note)) throw std::bad_alloc();
}

TraceStream::~TraceStream() = default;

const WalkCounts& TraceStream::counts() const { return impl_->counts; }
uint32_t TraceStream::range_lanes() const { return impl_->range_lanes; }
uint64_t TraceStream::gpu_left_out() const { return impl_->gpu.left_out(); }
const std::set<uint32_t>& TraceStream::node_threads() const { return impl_->node_threads; }

std::map<uint32_t, std::string> TraceStream::noted_names() const {
  std::map<uint32_t, std::string> names;
  for (const Recorder::ThreadEvents& t : impl_->threads) names[t.tid] = t.name;
  for (uint32_t lane = 0; lane < impl_->range_lanes; ++lane)
    names[kRangeLaneBase + lane] =
        lane == 0 ? "NVTX ranges" : "NVTX ranges " + std::to_string(lane + 1);
  return names;
}

const std::string& TraceStream::note() const { return impl_->note; }

bool TraceStream::recorded_nothing() const {
  if (impl_->cpu_count != 0 || !impl_->ranges.empty()) return false;
  for (size_t i = 0; i < impl_->gpu.staged(); ++i)
    if (impl_->gpu.record(i).id != kNoNode) return false;
  return true;
}

WrittenOutputs TraceStream::write(const Trace& header, const std::vector<std::string>& formats,
                                  OutputSink& sink) {
  try {
    if (!impl_->walked) {
      impl_->header = header;
      impl_->walk();
    }
    return write_outputs(*impl_, formats, sink);
  } catch (const std::exception& e) {
    return {{}, {std::string("could not write the trace: ") + e.what()}};
  } catch (...) {
    return {{}, {"could not write the trace"}};
  }
}

}  // namespace brickprof::agent
