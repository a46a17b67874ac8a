// The streamed exit write's walk (pass 2, see trace_stream.h): the threads
// read again, interleaved in the trace's depth-first order, building the
// aggregate tree and the brick statistics and writing the node spill.
#include <algorithm>
#include <queue>
#include <stdexcept>

#include "agent/io/trace_stream_impl.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent {
namespace {

constexpr uint32_t kNoSource = UINT32_MAX;

}  // namespace

// Pass 2's view of a thread: the open nodes, and where this thread's GPU
// work starts in by_parent().
class TraceStream::Impl::ThreadEmitter {
 public:
  ThreadEmitter(Impl& s, uint32_t tid, uint32_t first_id) : s_(s), tid_(tid) {
    const std::vector<uint32_t>& order = s.gpu.by_parent();
    gpu_cursor_ = static_cast<uint32_t>(std::lower_bound(order.begin(), order.end(), first_id,
                                                         [&](uint32_t r, uint32_t id) {
                                                           return s.gpu.record(r).node.parent < id;
                                                         }) -
                                        order.begin());
  }

  void open(uint32_t id, uint32_t parent, const Opened& o) {
    Frame* p = frames_.empty() ? nullptr : &frames_.back();
    (void)parent;                      // == p->id
    if (p) flush_gpu(*p, o.start_ns);  // its GPU work that started before this child
    Node n;
    n.kind = o.info.kind;
    n.thread = tid_;
    n.start_ns = o.start_ns;
    if (n.kind == NodeKind::kLayer) {
      n.layer_index = static_cast<int32_t>(o.arg);
      n.name = s_.layer_name(o.arg);
    } else {
      n.name = s_.site_name(o.site);
      n.elements = written_elements(o.arg, nullptr);
    }
    if (n.kind == NodeKind::kBrick) n.brick_id = o.info.brick_id;
    n.category = o.info.category;  // bricks; scopes of communication (MPI calls)
    Frame f{};
    f.id = id;
    f.site = o.site;
    f.kind = n.kind;
    f.arg = o.arg;
    f.start_ns = o.start_ns;
    f.agg = s_.enter_cpu(n, o, p ? p->agg : s_.group(tid_));
    f.own_brick = -1;
    if (n.kind == NodeKind::kBrick) {
      f.own_brick = s_.brick_slot(o.site, n.name);
      s_.stats_builder.seen(static_cast<size_t>(f.own_brick), id, n.category);
    }
    f.nearest_brick = f.own_brick >= 0 ? f.own_brick : p ? p->nearest_brick : -1;
    // This node's GPU work: the records whose parent is `id` (the ones
    // before are earlier nodes' of this thread).
    const std::vector<uint32_t>& order = s_.gpu.by_parent();
    while (gpu_cursor_ < order.size() && s_.gpu.record(order[gpu_cursor_]).node.parent < id)
      ++gpu_cursor_;
    f.gpu_next = gpu_cursor_;
    while (gpu_cursor_ < order.size() && s_.gpu.record(order[gpu_cursor_]).node.parent == id)
      ++gpu_cursor_;
    f.gpu_end = gpu_cursor_;
    frames_.push_back(f);
  }

  void close(uint32_t id, int64_t end_ns, bool clamp) {
    (void)id;  // == frames_.back().id
    flush_gpu(frames_.back(), INT64_MAX);
    const Frame f = frames_.back();
    frames_.pop_back();
    const Frame* p = frames_.empty() ? nullptr : &frames_.back();
    if (clamp) end_ns = std::max(end_ns, f.start_ns);
    const int64_t d = end_ns - f.start_ns;
    s_.add_time(f.agg, d, p ? p->agg : kNoAgg);            // a CPU child of a CPU node
    if (!p) s_.builder.add_root_span(f.start_ns, end_ns);  // roots come in start order
    if (f.own_brick >= 0) s_.stats_builder.add_brick(static_cast<size_t>(f.own_brick), d, f.arg);
    s_.spill.put(f.id, SpilledNode{f.start_ns, end_ns, f.arg, f.flops, f.bytes_moved, f.site,
                                   p ? p->id : kNoNode});
  }

  void work(uint32_t, double flops, double bytes) {
    frames_.back().flops += flops;
    frames_.back().bytes_moved += bytes;
  }
  void launch(uint64_t, uint32_t, int64_t, int64_t, uint32_t) {}
  void graph_node(uint64_t, uint32_t) {}
  void memory(const MemoryEvent&, uint32_t) {}  // read in pass 1
  void shapes(uint32_t, uint32_t) {}
  void checksum(uint32_t, uint32_t, uint64_t) {}
  void counter(const CounterSample&, uint32_t) {}
  void tile(const TileStats&) {}
  void cpu_counters(uint32_t, const uint64_t*) {}  // read in pass 1
  void range_start(uint64_t, uint64_t, uint32_t) {}
  void range_end(uint64_t, uint64_t) {}
  void consumed(const Recorder::Segment& segment) {
    if (s_.consume) Recorder::release(segment);
  }

 private:
  // Visits the frame's GPU work that started before `before` (all of it
  // for INT64_MAX): a scope's children are in start order, and a CPU child
  // precedes GPU work that starts with it (its id is lower).
  void flush_gpu(Frame& f, int64_t before) {
    const std::vector<uint32_t>& order = s_.gpu.by_parent();
    for (; f.gpu_next < f.gpu_end; ++f.gpu_next) {
      const uint32_t r = order[f.gpu_next];
      if (s_.gpu.record(r).node.start_ns >= before) break;
      s_.visit_gpu(r, &f);
    }
  }

  Impl& s_;
  uint32_t tid_;
  uint32_t gpu_cursor_;
  std::vector<Frame> frames_;
};

struct TraceStream::Impl::ThreadState {
  ThreadState(Impl& s, size_t i, WalkCounts& scratch)
      : emitter(s, s.threads[i].tid, s.first_id[i]),
        walk(s.threads[i], s.first_id[i], s.clock, s.end_tsc, s.windows, scratch) {}
  ThreadEmitter emitter;
  ThreadWalk<ThreadEmitter> walk;
  bool finished = false;

  // Reads up to the thread's next outermost node; false when none is left.
  bool next_root(const Clock& clock, int64_t* start_ns, uint32_t* id) {
    if (finished) return false;
    while (const Event* e = walk.peek(emitter)) {
      if (!walk.inside_node() && (e->type() == EventType::kPush || e->type() == EventType::kMark)) {
        *start_ns = clock.to_ns(e->tsc);
        *id = walk.next_id();
        return true;
      }
      walk.take(emitter);
    }
    walk.finish(emitter);
    finished = true;
    return false;
  }
  // The root next_root() found, and everything inside it.
  void walk_root() {
    walk.take(emitter);
    while (walk.inside_node()) {
      if (!walk.peek(emitter)) {
        walk.finish(emitter);
        finished = true;
        return;
      }
      if (!walk.inside_node()) return;  // a window's edge closed it
      walk.take(emitter);
    }
  }
};

StringId TraceStream::Impl::site_name(uint32_t site) {
  if (site >= site_names.size()) site_names.resize(site + 1, kUnset);
  StringId& id = site_names[site];
  if (id == kUnset) id = exemplars.strings.intern(Recorder::site(site).name);
  return id;
}

StringId TraceStream::Impl::layer_name(uint64_t index) {
  constexpr uint64_t kDirect = 4096;  // layer numbers are small: a vector answers
  if (index < kDirect) {
    if (index >= layer_by_index.size()) layer_by_index.resize(index + 1, kUnset);
    StringId& id = layer_by_index[index];
    if (id == kUnset) id = exemplars.strings.intern("Layer " + std::to_string(index));
    return id;
  }
  auto [it, inserted] = layer_names.emplace(index, 0);
  if (inserted) it->second = exemplars.strings.intern("Layer " + std::to_string(index));
  return it->second;
}

int32_t TraceStream::Impl::brick_slot(uint32_t site, StringId name) {
  if (site >= brick_slots.size()) brick_slots.resize(site + 1, -1);
  if (brick_slots[site] < 0)
    brick_slots[site] = static_cast<int32_t>(stats_builder.slot(exemplar_text(name)));
  return brick_slots[site];
}

StringId TraceStream::Impl::gpu_name(const StagedRecord& r) {
  const StringId staged_name = r.node.name;
  if (staged_name >= gpu_names.size()) gpu_names.resize(staged_name + 1, kUnset);
  if (gpu_names[staged_name] == kUnset)
    gpu_names[staged_name] = exemplars.strings.intern(gpu.name(r));
  return gpu_names[staged_name];
}

uint32_t TraceStream::Impl::enter_cpu(const Node& node, const Opened& o, uint32_t parent_agg) {
  if (aggregate_full) return kNoAgg;
  const uint64_t layer = node.kind == NodeKind::kLayer ? o.arg : 0;
  const uint64_t h = (uint64_t{parent_agg} * 0x9E3779B97F4A7C15ull) ^
                     (o.site * 0xC2B2AE3D27D4EB4Full) ^ (layer * 0x165667B19E3779F9ull);
  CachedEntry& c = entry_cache[(h >> 32) % kEntryCache];
  if (c.agg != kNoAgg && c.parent_agg == parent_agg && c.site == o.site && c.layer == layer) {
    builder.enter_again(c.agg, node, nullptr);
    return c.agg;
  }
  const uint32_t agg = enter(node, nullptr, parent_agg);
  c = {parent_agg, o.site, layer, agg};
  return agg;
}

bool TraceStream::Impl::charge(uint64_t bytes) {
  if (!budget::charge_for_write(bytes)) return false;
  charged += bytes;
  return true;
}

// Entries past the budget stop the aggregate (the JSON is written whole).
uint32_t TraceStream::Impl::group(uint32_t tid) {
  if (aggregate_full) return kNoAgg;
  const size_t entries = builder.size();
  const uint32_t agg = builder.thread_group(tid);
  if (builder.size() != entries && !charge(kEntryBytes)) aggregate_full = true;
  return aggregate_full ? kNoAgg : agg;
}

void TraceStream::Impl::add_time(uint32_t agg, int64_t duration_ns, uint32_t cpu_parent_agg) {
  if (!aggregate_full) builder.add_time(agg, duration_ns, cpu_parent_agg);
}

uint32_t TraceStream::Impl::enter(const Node& node, const GpuDetail* detail, uint32_t parent_agg) {
  if (aggregate_full || parent_agg == kNoAgg) return kNoAgg;
  const size_t entries = builder.size();
  const auto first = static_cast<uint32_t>(exemplars.nodes.size());
  const uint32_t agg = builder.enter(node, detail, parent_agg, first);
  if (builder.size() != entries) {  // a new entry: keep its first member
    if (detail)
      exemplars.add_gpu_node(node, *detail);
    else
      exemplars.add_node(node);
    if (!charge(kEntryBytes)) {
      aggregate_full = true;
      return kNoAgg;
    }
  }
  return agg;
}

void TraceStream::Impl::visit_gpu(uint32_t record, const Frame* parent) {
  const StagedRecord& r = gpu.record(record);
  Node n = r.node;
  n.name = gpu_name(r);
  n.detail = kNoDetail;
  const uint32_t agg = enter(n, &r.detail, parent ? parent->agg : group(n.thread));
  add_time(agg, n.duration_ns(), kNoAgg);
  if (parent && parent->nearest_brick >= 0 && n.kind == NodeKind::kKernel)
    stats_builder.add_kernel(static_cast<size_t>(parent->nearest_brick), n.duration_ns());
}

void TraceStream::Impl::visit_range(size_t i) {
  std::string_view unused;
  Node n = range_node(i, &unused);
  n.name = site_name(ranges[i].site);
  const uint32_t agg = enter(n, nullptr, group(n.thread));
  add_time(agg, n.duration_ns(), kNoAgg);
  builder.add_root_span(n.start_ns, n.end_ns);
  if (n.kind == NodeKind::kBrick) {
    const size_t slot = stats_builder.slot(exemplar_text(n.name));
    stats_builder.seen(slot, static_cast<uint32_t>(cpu_count + i), n.category);
    stats_builder.add_brick(slot, n.duration_ns(), 0);
  }
}

// The depth-first walk (see the header): roots from every source in
// (start, id) order.
void TraceStream::Impl::walk() {
  walked = true;
  // What the tree says beside the entries: the run's time, outside every scope.
  exemplars.threads = header.threads;
  group_python();
  exemplars.process = header.process;
  exemplars.diagnostics.capture = header.diagnostics.capture;
  exemplars.diagnostics.capture_windows = header.diagnostics.capture_windows;
  WalkCounts scratch;  // pass 1 counted
  std::vector<std::unique_ptr<ThreadState>> states;
  states.reserve(threads.size());
  struct Root {
    int64_t start_ns;
    uint32_t id;
    uint32_t source;  // a thread's index, or kRanges, kOrphans
    bool operator>(const Root& o) const {
      return start_ns != o.start_ns ? start_ns > o.start_ns : id > o.id;
    }
  };
  const uint32_t kRanges = kNoSource - 1, kOrphans = kNoSource - 2, kPython = kNoSource - 3;
  std::priority_queue<Root, std::vector<Root>, std::greater<Root>> roots;
  for (size_t i = 0; i < threads.size(); ++i) {
    states.push_back(std::make_unique<ThreadState>(*this, i, scratch));
    Root r{0, 0, static_cast<uint32_t>(i)};
    if (states.back()->next_root(clock, &r.start_ns, &r.id)) roots.push(r);
  }
  size_t next_range = 0;
  auto push_range = [&] {
    if (next_range < ranges.size())
      roots.push(
          {ranges[next_range].start_ns, cpu_count + static_cast<uint32_t>(next_range), kRanges});
  };
  const std::vector<uint32_t>& order = gpu.by_parent();
  size_t next_orphan = static_cast<size_t>(
      std::lower_bound(order.begin(), order.end(), kNoNode,
                       [&](uint32_t r, uint32_t p) { return gpu.record(r).node.parent < p; }) -
      order.begin());
  auto push_orphan = [&] {
    while (next_orphan < order.size() && python.grouped(order[next_orphan])) ++next_orphan;
    if (next_orphan < order.size()) {
      const StagedRecord& r = gpu.record(order[next_orphan]);
      roots.push({r.node.start_ns, r.id, kOrphans});
    }
  };
  size_t next_python = 0;  // GPU work grouped under its Python frames: their root scopes
  auto push_python = [&] {
    if (next_python < python.roots_in_order.size()) {
      const uint32_t scope = python.roots_in_order[next_python];
      roots.push({python.scopes[scope].start_ns, python.id(scope), kPython});
    }
  };
  push_range();
  push_orphan();
  push_python();
  while (!roots.empty()) {
    const Root r = roots.top();
    roots.pop();
    if (r.source == kRanges) {
      visit_range(next_range++);
      push_range();
    } else if (r.source == kOrphans) {
      visit_gpu(order[next_orphan++], nullptr);
      push_orphan();
    } else if (r.source == kPython) {
      const uint32_t scope = python.roots_in_order[next_python++];
      const PythonScope& root = python.scopes[scope];
      builder.add_root_span(root.start_ns, root.end_ns);  // a scope as report sees it
      visit_python(scope, group(root.thread), kNoAgg);
      push_python();
    } else {
      ThreadState& t = *states[r.source];
      t.walk_root();
      Root next{0, 0, r.source};
      if (t.next_root(clock, &next.start_ns, &next.id))
        roots.push(next);
      else
        states[r.source].reset();  // done: its open stack and frames go
    }
  }
  spill.finish_writes();
  tree = builder.finish();
  stats = stats_builder.finish();
  if (aggregate_full)
    header.diagnostics.warnings.push_back(
        "the aggregate tree (" + std::to_string(tree.nodes.size()) +
        "+ distinct entries) did not fit BRICKPROF_BUFFER_MB: no tree, DOT or folded output "
        "(brickprof report writes them from this trace)");
}
}  // namespace brickprof::agent
