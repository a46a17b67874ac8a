// The streamed exit write (see trace_stream.h for the design): the plan
// (pass 1), the depth-first walk that builds the aggregate, the statistics
// and the node spill (pass 2), and the writers of each format.
#include "agent/trace_stream.h"

#include <algorithm>
#include <queue>
#include <stdexcept>
#include <unordered_map>

#include "agent/budget.h"
#include "agent/gpu_attribution.h"
#include "agent/node_spill.h"
#include "agent/replay.h"
#include "analysis/aggregate_tree.h"
#include "analysis/export_chrome.h"
#include "analysis/export_dot.h"
#include "analysis/export_folded.h"
#include "analysis/export_tree.h"
#include "analysis/stats.h"
#include "analysis/trace_json_parts.h"

namespace brickprof::agent {
namespace {

// Pass 1's view of a thread: only what attribution and ranges need.
struct Planner {
  GpuAttribution& gpu;
  uint32_t tid;
  std::vector<RangeStart>& range_starts;
  RangeEnds& range_ends;

  void open(uint32_t, uint32_t, const Opened&) {}
  void close(uint32_t, int64_t, bool) {}
  void work(uint32_t, double, double) {}
  void launch(uint64_t correlation, uint32_t top, int64_t api_start_ns, int64_t api_end_ns) {
    gpu.launch(correlation, top, tid, api_start_ns, api_end_ns);
  }
  void graph_node(uint64_t graph_node_id, uint32_t top) { gpu.graph_node(graph_node_id, top); }
  void range_start(uint64_t range_id, uint64_t tsc, uint32_t site) {
    range_starts.push_back({range_id, tsc, site});
  }
  void range_end(uint64_t range_id, uint64_t tsc) { range_ends.emplace_back(range_id, tsc); }
  void consumed(const Recorder::Segment&) {}
};

// An open CPU node during pass 2.
struct Frame {
  uint32_t id;
  uint32_t agg;
  uint32_t site;
  NodeKind kind;
  int32_t own_brick;      // its statistics slot if it is a brick, else -1
  int32_t nearest_brick;  // the slot of the nearest brick around it (itself included), or -1
  uint64_t arg;
  int64_t start_ns;
  double flops;
  double bytes_moved;
  uint32_t gpu_next;  // its GPU work still to visit: by_parent()[gpu_next, gpu_end)
  uint32_t gpu_end;
};

constexpr uint32_t kNoSource = UINT32_MAX;

}  // namespace

struct TraceStream::Impl final : StreamedTrace {
  class ThreadEmitter;
  struct ThreadState;

  Impl(std::vector<Recorder::ThreadEvents> t, const Clock& c, uint64_t end,
       std::vector<capture::Window> w, GpuDump* g, bool consume_events)
      : threads(std::move(t)),
        clock(c),
        end_tsc(end),
        windows(std::move(w)),
        gpu(g),
        consume(consume_events) {}
  ~Impl() override { budget::release(charged); }

  void plan();
  void walk();
  Node cpu_node(uint32_t id, const SpilledNode& r, uint32_t tid, std::string_view* name);
  Node range_node(size_t i, std::string_view* name);
  uint32_t thread_of(uint32_t id) const;
  // pass 2
  StringId site_name(uint32_t site);
  StringId layer_name(uint64_t index);
  int32_t brick_slot(uint32_t site, StringId name);
  uint32_t enter(const Node& node, const GpuDetail* detail, uint32_t parent_agg);
  uint32_t enter_cpu(const Node& node, const Opened& o, uint32_t parent_agg);
  void visit_gpu(uint32_t record, const Frame* parent);
  void visit_range(size_t i);
  std::string_view exemplar_text(StringId id) const { return exemplars.strings.view(id); }

  // The aggregate's share of the budget: a new entry, and its folded trie
  // node (as measured: the exemplar and its name, the entry, its index
  // slot; the trie node and its text).
  static constexpr uint64_t kEntryBytes = 352;
  static constexpr uint64_t kFoldedEntryBytes = 192;
  bool charge(uint64_t bytes);
  uint32_t group(uint32_t tid);
  void add_time(uint32_t agg, int64_t duration_ns, uint32_t cpu_parent_agg);
  void aggregate_or_throw(const char* format) const;

  void write_json(std::ostream& out) override;
  void write_tree(std::ostream& out) override {
    aggregate_or_throw("tree");
    brickprof::write_tree(exemplars, tree, out);
  }
  void write_dot(std::ostream& out) override {
    aggregate_or_throw("dot");
    brickprof::write_dot(exemplars, tree, out);
  }
  void write_chrome(std::ostream& out) override;
  void write_folded(std::ostream& out) override;

  std::vector<Recorder::ThreadEvents> threads;
  Clock clock;
  uint64_t end_tsc;
  std::vector<capture::Window> windows;
  GpuAttribution gpu;
  bool consume;

  // pass 1
  WalkCounts counts;
  std::vector<uint32_t> first_id;  // per thread
  uint32_t cpu_count = 0;
  std::vector<PlacedRange> ranges;
  uint32_t range_lanes = 0;
  std::set<uint32_t> node_threads;

  NodeSpill spill;
  std::string note;

  // pass 2
  Trace header;  // as given, with what the walk found to say
  bool walked = false;
  uint64_t charged = 0;         // taken from the budget for the aggregate
  bool aggregate_full = false;  // the budget refused it: no tree, DOT, folded
  Trace exemplars;  // each aggregate entry's first member, names interned here
  AggregateBuilder builder;
  AggregateTree tree;
  StatsBuilder stats_builder;
  TraceStats stats;
  std::vector<StringId> site_names;  // by site; kUnset until seen
  std::vector<int32_t> brick_slots;  // statistics slot by site; -1 until seen
  std::vector<StringId> layer_by_index;
  std::unordered_map<uint64_t, StringId> layer_names;  // past layer_by_index
  std::vector<StringId> gpu_names;                     // by the staged records' name ids
  static constexpr StringId kUnset = UINT32_MAX;
  // enter()'s answers for CPU nodes, by (parent entry, site, layer index):
  // the same scopes open under the same entries over and over.
  struct CachedEntry {
    uint32_t parent_agg = kNoAgg;
    uint32_t site = 0;
    uint64_t layer = 0;
    uint32_t agg = kNoAgg;
  };
  static constexpr size_t kEntryCache = 4096;
  std::vector<CachedEntry> entry_cache = std::vector<CachedEntry>(kEntryCache);
};

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
      n.elements = o.arg;
    }
    if (n.kind == NodeKind::kBrick) {
      n.brick_id = o.info.brick_id;
      n.category = o.info.category;
    }
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
    s_.add_time(f.agg, d, p ? p->agg : kNoAgg);  // a CPU child of a CPU node
    if (f.own_brick >= 0) s_.stats_builder.add_brick(static_cast<size_t>(f.own_brick), d, f.arg);
    s_.spill.put(f.id, SpilledNode{f.start_ns, end_ns, f.arg, f.flops, f.bytes_moved, f.site,
                                   p ? p->id : kNoNode});
  }

  void work(uint32_t, double flops, double bytes) {
    frames_.back().flops += flops;
    frames_.back().bytes_moved += bytes;
  }
  void launch(uint64_t, uint32_t, int64_t, int64_t) {}
  void graph_node(uint64_t, uint32_t) {}
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

void TraceStream::Impl::plan() {
  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;
  first_id.reserve(threads.size());
  for (const Recorder::ThreadEvents& te : threads) {
    first_id.push_back(cpu_count);
    Planner planner{gpu, te.tid, range_starts, range_ends};
    ThreadWalk<Planner> walk(te, cpu_count, clock, end_tsc, windows, counts);
    walk.run(planner);
    if (walk.next_id() != cpu_count) node_threads.insert(te.tid);
    cpu_count = walk.next_id();
  }
  ranges = place_ranges(range_starts, range_ends, clock, end_tsc, windows, counts, &range_lanes);
  for (const PlacedRange& r : ranges) node_threads.insert(kRangeLaneBase + r.lane);
  // GPU work's launching threads are not listed (as the whole-Trace write
  // never did): a thread is listed for the CPU nodes on it.
  gpu.finish(cpu_count + static_cast<uint32_t>(ranges.size()));
}

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
  if (!budget::charge(bytes)) return false;
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
  const StringId staged_name = r.node.name;
  if (staged_name >= gpu_names.size()) gpu_names.resize(staged_name + 1, kUnset);
  if (gpu_names[staged_name] == kUnset)
    gpu_names[staged_name] = exemplars.strings.intern(gpu.name(r));
  n.name = gpu_names[staged_name];
  n.detail = kNoDetail;
  const uint32_t agg = enter(n, &r.detail, parent ? parent->agg : group(n.thread));
  add_time(agg, n.duration_ns(), kNoAgg);
  if (parent && parent->nearest_brick >= 0)
    stats_builder.add_gpu(static_cast<size_t>(parent->nearest_brick), n.duration_ns());
}

void TraceStream::Impl::visit_range(size_t i) {
  std::string_view unused;
  Node n = range_node(i, &unused);
  n.name = site_name(ranges[i].site);
  const uint32_t agg = enter(n, nullptr, group(n.thread));
  add_time(agg, n.duration_ns(), kNoAgg);
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
  exemplars.threads = header.threads;
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
  const uint32_t kRanges = kNoSource - 1, kOrphans = kNoSource - 2;
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
    if (next_orphan < order.size()) {
      const StagedRecord& r = gpu.record(order[next_orphan]);
      roots.push({r.node.start_ns, r.id, kOrphans});
    }
  };
  push_range();
  push_orphan();
  while (!roots.empty()) {
    const Root r = roots.top();
    roots.pop();
    if (r.source == kRanges) {
      visit_range(next_range++);
      push_range();
    } else if (r.source == kOrphans) {
      visit_gpu(order[next_orphan++], nullptr);
      push_orphan();
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

uint32_t TraceStream::Impl::thread_of(uint32_t id) const {
  auto after = std::upper_bound(first_id.begin(), first_id.end(), id);
  return threads[static_cast<size_t>(after - first_id.begin()) - 1].tid;
}

Node TraceStream::Impl::cpu_node(uint32_t id, const SpilledNode& r, uint32_t tid,
                                 std::string_view* name) {
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
    n.elements = r.arg;
    *name = info.name;
  }
  if (n.kind == NodeKind::kBrick) {
    n.brick_id = info.brick_id;
    n.category = info.category;
  }
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
  size_t thread = 0;  // the thread whose id block holds the current id
  spill.scan([&](uint32_t id, const SpilledNode& r) {
    while (thread + 1 < threads.size() && first_id[thread + 1] <= id) ++thread;
    std::string_view name;
    const Node n = cpu_node(id, r, threads[thread].tid, &name);
    write_trace_json_node(w, id, n, name, nullptr);
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
  write_trace_json_tail(w, header.ptx, stats);
}

void TraceStream::Impl::write_chrome(std::ostream& out) {
  std::set<std::pair<uint32_t, uint32_t>> streams;
  for (size_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id != kNoNode) streams.emplace(r.detail.device, r.detail.stream);
  }
  ChromeTraceWriter chrome(header, out);
  chrome.begin(node_threads, streams);
  size_t thread = 0;
  spill.scan([&](uint32_t id, const SpilledNode& r) {
    while (thread + 1 < threads.size() && first_id[thread + 1] <= id) ++thread;
    std::string_view name;
    const Node n = cpu_node(id, r, threads[thread].tid, &name);
    chrome.node(id, n, name, nullptr, nullptr);
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
    const bool has_parent = r.node.parent != kNoNode;
    if (has_parent) {
      std::string_view unused;
      parent = cpu_node(r.node.parent, spill.get(r.node.parent), thread_of(r.node.parent), &unused);
    }
    chrome.node(r.id, r.node, gpu.name(r), &r.detail, has_parent ? &parent : nullptr);
  }
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

std::vector<std::string> TraceStream::write(const Trace& header,
                                            const std::vector<std::string>& formats,
                                            OutputSink& sink) {
  try {
    if (!impl_->walked) {
      impl_->header = header;
      impl_->walk();
    }
    return write_outputs(*impl_, formats, sink);
  } catch (const std::exception& e) {
    return {std::string("could not write the trace: ") + e.what()};
  } catch (...) {
    return {"could not write the trace"};
  }
}

}  // namespace brickprof::agent
