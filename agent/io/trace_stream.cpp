// The streamed exit write (see trace_stream.h for the design): the plan
// (pass 1) and the feeding of each format's sink; the walk (pass 2) is in
// trace_stream_walk.cpp.
#include "agent/io/trace_stream.h"

#include <algorithm>
#include <stdexcept>

#include "agent/io/trace_stream_impl.h"
#include "agent/recorder/budget.h"
#include "trace/derive/cpu_work.h"
#include "trace/formats/distributed_info.h"
#include "trace/model/bricks.h"
#include "trace/output/formats.h"

namespace brickprof::agent {
namespace {

// Pass 1's view of a thread: only what attribution, ranges and the Python
// frames' grouping need.
struct Planner {
  MemoryEvents& memory_events;
  MemoryActivityEvents& memory_activity;
  ChecksumEvents& checksum_events;
  CounterEvents& counter_events;
  TileEvents& tile_events;
  CpuCounterEvents& cpu_counter_events;
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
    memory_activity.launch(correlation, top, tid, python_stack);
    launched_outside |= top == kNoNode && python_stack != kNoPythonStack;
  }
  void graph_node(uint64_t graph_node_id, uint32_t top) { gpu.graph_node(graph_node_id, top); }
  void range_start(uint64_t range_id, uint64_t tsc, uint32_t site) {
    range_starts.push_back({range_id, tsc, site});
  }
  void range_end(uint64_t range_id, uint64_t tsc) { range_ends.emplace_back(range_id, tsc); }
  void memory(const MemoryEvent& e, uint32_t name_site) { memory_events.add(e, name_site); }
  void shapes(uint32_t top, uint32_t signature_site) {
    memory_events.add_shapes(top, signature_site);
  }
  void checksum(uint32_t top, uint32_t name_site, uint64_t index) {
    checksum_events.add(top, name_site, index);
  }
  void counter(const CounterSample& s, uint32_t name_site) { counter_events.add(s, name_site); }
  void tile(const TileStats& s) { tile_events.add(s); }
  void cpu_counters(uint32_t node, const uint64_t* values) { cpu_counter_events.add(node, values); }
  void consumed(const Recorder::Segment&) {}
};

}  // namespace

void TraceStream::Impl::plan() {
  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;
  first_id.reserve(threads.size());
  for (const Recorder::ThreadEvents& te : threads) {
    first_id.push_back(cpu_count);
    Planner planner{memory, memory_activity, checksums,  counters,   tiles,
                    cpu_counters, gpu,       te.tid,     range_starts, range_ends,
                    python.roots[te.tid]};
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
  memory_activity.finish(memory, threads.empty() ? 0 : threads.front().tid);
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

void TraceStream::Impl::feed_nodes(TraceSink& sink, bool grouped, bool launchers) {
  each_cpu_node([&](uint32_t id, const Node& n, std::string_view name, const CommCall* call) {
    sink.node({id, n, name, nullptr, call, nullptr});
  });
  for (size_t i = 0; i < ranges.size(); ++i) {
    std::string_view name;
    const Node n = range_node(i, &name);
    sink.node({cpu_count + static_cast<uint32_t>(i), n, name, nullptr, nullptr, nullptr});
  }
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id == kNoNode) continue;
    Node node = r.node;
    Node parent;
    if (grouped && python.grouped(i)) {
      node.parent = python.id(python.scope_of[i]);
      if (launchers) parent = python_node(python.scope_of[i]);
    } else if (launchers && r.node.parent != kNoNode) {
      // A random read of the spill: only for the sinks that ask.
      std::string_view unused;
      parent = cpu_node(r.node.parent, spill.get(r.node.parent), thread_of(r.node.parent), &unused);
    }
    const bool has_parent = launchers && node.parent != kNoNode;
    sink.node({r.id, node, gpu.name(r), &r.detail, nullptr, has_parent ? &parent : nullptr});
  }
  if (!grouped) return;
  for (uint32_t s = 0; s < python.scopes.size(); ++s)
    sink.node(
        {python.id(s), python_node(s), exemplar_text(python.names[s]), nullptr, nullptr, nullptr});
}

void TraceStream::Impl::feed_edges(TraceSink& sink) {
  spill.scan([&](uint32_t id, const SpilledNode& r) {
    if (r.parent != kNoNode) sink.edge(Edge{r.parent, id, EdgeType::kContains});
  });
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id != kNoNode && r.node.parent != kNoNode)
      sink.edge(Edge{r.node.parent, r.id, EdgeType::kLaunches});
  }
}

void TraceStream::Impl::feed_cpu_work(TraceSink& sink) {
  if (!is_one_rank(header)) return;
  for (size_t i = 0; i < gpu.staged(); ++i)
    if (gpu.record(i).id != kNoNode && is_device_op(gpu.record(i).node.kind)) return;
  sink.cpu_work_track();
  // Measured on its CPU (trace/derive/cpu_work.h): a node's children are known only
  // once the spill is read, so two bits a node, asked of the budget, and a
  // scan (parents before children: a thread's ids go in push order).
  const uint64_t bytes = 2 * (uint64_t{cpu_count} + 7) / 8;
  if (!charge(bytes))
    throw std::runtime_error(
        "chrome: not written, its CPU work track did not fit BRICKPROF_BUFFER_MB (brickprof "
        "report --chrome writes it from the JSON trace)");
  std::vector<bool> inside(cpu_count), has_cpu_child(cpu_count);
  spill.scan([&](uint32_t id, const SpilledNode& r) {
    const bool parent = r.parent != kNoNode;
    const bool communication = Recorder::site(r.site).category == Category::kCommunication;
    inside[id] = (parent && inside[r.parent]) || communication;
    if (parent) has_cpu_child[r.parent] = true;
  });
  each_cpu_node([&](uint32_t id, const Node& n, std::string_view name, const CommCall*) {
    const bool parent_inside = n.parent != kNoNode && inside[n.parent];
    if (cpu_work_of(inside[id], parent_inside, has_cpu_child[id]) == CpuWork::kCompute)
      sink.cpu_work({id, n, name, nullptr, nullptr, nullptr});
  });
  budget::release(bytes);  // the bits are gone
  charged -= bytes;
}

void TraceStream::Impl::feed(TraceSink& sink) {
  const unsigned needs = sink.needs();
  const bool grouped = !(needs & TraceSink::kRecorded);
  if (!streams) {
    streams.emplace();
    for (size_t i = 0; i < gpu.staged(); ++i) {
      const StagedRecord& r = gpu.record(i);
      if (r.id == kNoNode) continue;
      streams->emplace(r.detail.device, r.detail.stream);
      nccl_kernels |= r.node.kind == NodeKind::kKernel && is_communication_kernel(gpu.name(r));
    }
  }
  std::set<uint32_t> tracks = node_threads;  // and the threads of the Python frames' scopes
  if (grouped)
    for (const auto& [tid, scopes] : python.by_thread) tracks.insert(tid);
  sink.begin({header, tracks, *streams, nccl_kernels, exemplars.strings.size()});
  if (needs & TraceSink::kNodes) feed_nodes(sink, grouped, needs & TraceSink::kLaunchers);
  if (needs & TraceSink::kEdges) {
    // The edges of the trace as recorded (the JSON's): report derives the rest.
    if (grouped) throw std::logic_error("edges are fed of the trace as recorded only");
    feed_edges(sink);
  }
  if (needs & TraceSink::kCpuWork) feed_cpu_work(sink);
  if (needs & TraceSink::kAggregate)
    sink.aggregate({exemplars, tree,
                    aggregate_full
                        ? "its aggregate tree did not fit BRICKPROF_BUFFER_MB (brickprof "
                          "report writes it from the JSON trace)"
                        : "",
                    [this](uint64_t bytes) { return charge(bytes); }});
  if (needs & TraceSink::kTracks) feed_tracks(sink);
  sink.end(&stats);
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
      impl_->memory.fill(impl_->header);
      impl_->checksums.fill(impl_->header);
      impl_->counters.fill(impl_->header);
      impl_->tiles.fill(impl_->header);
      impl_->cpu_counters.fill(impl_->header);
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
