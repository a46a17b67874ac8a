// The whole-Trace oracle (see replay_oracle.h).
#include "tests/agent/support/replay_oracle.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "agent/recorder/checksum_table.h"

namespace brickprof::agent {
namespace {

// Node names are interned into the trace's own table, once per site.
class NameCache {
 public:
  explicit NameCache(Trace& trace) : trace_(trace) {}
  StringId site_name(uint32_t site) {
    if (site >= by_site_.size()) by_site_.resize(site + 1, kUnset);
    StringId& id = by_site_[site];
    if (id == kUnset) id = trace_.strings.intern(Recorder::site(site).name);
    return id;
  }
  StringId layer_name(uint64_t index) {
    auto it = layers_.find(index);
    if (it != layers_.end()) return it->second;
    StringId id = trace_.strings.intern("Layer " + std::to_string(index));
    layers_.emplace(index, id);
    return id;
  }

 private:
  static constexpr StringId kUnset = UINT32_MAX;
  Trace& trace_;
  std::vector<StringId> by_site_;
  std::unordered_map<uint64_t, StringId> layers_;
};

// Builds Trace nodes and edges as the walk reads them.
class TraceBuilder {
 public:
  TraceBuilder(Trace& trace, NameCache& names, ReplayResult& result, uint32_t tid)
      : trace_(trace), names_(names), result_(result), tid_(tid) {}

  void open(uint32_t id, uint32_t parent, const Opened& o) {
    Node n;
    n.kind = o.info.kind;
    n.thread = tid_;
    n.parent = parent;
    n.start_ns = n.end_ns = o.start_ns;
    if (o.info.kind == NodeKind::kLayer) {
      n.layer_index = static_cast<int32_t>(o.arg);
      n.name = names_.layer_name(o.arg);
    } else {
      n.name = names_.site_name(o.site);
      n.elements = o.arg;
    }
    if (o.info.kind == NodeKind::kBrick) n.brick_id = o.info.brick_id;
    n.category = o.info.category;  // bricks; scopes of communication (MPI calls)
    trace_.add_node(n);            // ids are dense: `id` is the next one
    if (parent != kNoNode) trace_.add_edge(parent, id, EdgeType::kContains);
  }
  void close(uint32_t id, int64_t end_ns, bool clamp) {
    Node& n = trace_.nodes[id];
    n.end_ns = clamp ? std::max(end_ns, n.start_ns) : end_ns;
  }
  void work(uint32_t top, double flops, double bytes) {
    trace_.nodes[top].flops += flops;
    trace_.nodes[top].bytes_moved += bytes;
  }
  void launch(uint64_t correlation, uint32_t top, int64_t api_start_ns, int64_t api_end_ns,
              uint32_t python_stack) {
    result_.launches.by_correlation[correlation] =
        LaunchPoint{top, tid_, api_start_ns, api_end_ns, python_stack};
  }
  void graph_node(uint64_t graph_node_id, uint32_t top) {
    result_.launches.scope_of_graph_node[graph_node_id] = top;
  }
  void range_start(uint64_t range_id, uint64_t tsc, uint32_t site) {
    range_starts.push_back({range_id, tsc, site});
  }
  void range_end(uint64_t range_id, uint64_t tsc) { range_ends.emplace_back(range_id, tsc); }
  void memory(const MemoryEvent& e, uint32_t name_site) {
    trace_.memory.push_back(e);
    trace_.memory.back().name = names_.site_name(name_site);
  }
  void shapes(uint32_t top, uint32_t signature_site) {
    NodeShape shape;
    shape.node = top;
    if (Recorder::parse_shapes_signature(Recorder::site(signature_site).name, &shape))
      shapes_by_node[top] = std::move(shape);  // the last one wins
  }
  void checksum(uint32_t top, uint32_t name_site, uint64_t index) {
    checksum_table::Entry entry;
    if (top == kNoNode || !checksum_table::get(index, &entry)) return;
    OutputChecksum c;
    c.node = top;
    c.name = names_.site_name(name_site);
    c.type = entry.type;
    c.address = entry.address;
    c.digest = entry.digest;
    trace_.checksums.push_back(c);
  }
  void counter(const CounterSample& s, uint32_t name_site) {
    trace_.counters.push_back(s);
    trace_.counters.back().name = s.kind == CounterKind::kTokens
                                      ? trace_.strings.intern(kTokensName)
                                      : names_.site_name(name_site);
  }
  // Tiles in a node, added up per node, thread and level as the exit write does.
  void tile(const TileStats& s) {
    if (s.node == kNoNode) return;
    TileStats& sum = tiles[{s.node, s.thread, static_cast<uint32_t>(s.level)}];
    sum.node = s.node;
    sum.thread = s.thread;
    sum.level = s.level;
    sum.count += s.count;
    sum.total_ns += s.total_ns;
    sum.elements += s.elements;
    sum.bytes += s.bytes;
  }
  void cpu_counters(uint32_t node, const uint64_t* values) {
    NodeCpuCounters n;
    n.node = node;
    std::copy(values, values + kMaxCpuCounters, n.values.begin());
    trace_.cpu_counters.nodes.push_back(n);
  }
  void consumed(const Recorder::Segment&) {}

  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, TileStats> tiles;
  std::vector<RangeStart> range_starts;
  std::map<uint32_t, NodeShape> shapes_by_node;
  RangeEnds range_ends;

 private:
  Trace& trace_;
  NameCache& names_;
  ReplayResult& result_;
  uint32_t tid_;
};

}  // namespace

ReplayResult replay(const std::vector<Recorder::ThreadEvents>& threads, const Clock& clock,
                    uint64_t end_tsc, Trace& trace, const std::vector<capture::Window>& windows) {
  ReplayResult result;
  NameCache names(trace);
  std::vector<RangeStart> range_starts;
  RangeEnds range_ends;
  for (const Recorder::ThreadEvents& te : threads) {
    TraceBuilder builder(trace, names, result, te.tid);
    ThreadWalk<TraceBuilder> walk(te, static_cast<uint32_t>(trace.nodes.size()), clock, end_tsc,
                                  windows, result);
    walk.run(builder);
    range_starts.insert(range_starts.end(), builder.range_starts.begin(),
                        builder.range_starts.end());
    range_ends.insert(range_ends.end(), builder.range_ends.begin(), builder.range_ends.end());
    for (auto& [node, shape] : builder.shapes_by_node) trace.shapes.push_back(std::move(shape));
    for (auto& [key, sum] : builder.tiles) trace.tiles.push_back(sum);
  }
  // Memory events and counter samples in time order, ties as recorded; shapes by node.
  std::stable_sort(trace.memory.begin(), trace.memory.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
  std::stable_sort(trace.counters.begin(), trace.counters.end(),
                   [](const CounterSample& a, const CounterSample& b) { return a.time_ns < b.time_ns; });
  std::stable_sort(trace.shapes.begin(), trace.shapes.end(),
                   [](const NodeShape& a, const NodeShape& b) { return a.node < b.node; });
  std::stable_sort(
      trace.tiles.begin(), trace.tiles.end(), [](const TileStats& a, const TileStats& b) {
        return a.node < b.node;  // then thread and level, as each thread's map left them
      });
  std::sort(trace.cpu_counters.nodes.begin(), trace.cpu_counters.nodes.end(),
            [](const NodeCpuCounters& a, const NodeCpuCounters& b) { return a.node < b.node; });
  if (!trace.cpu_counters.nodes.empty()) trace.cpu_counters.events = cpu_counters::event_names();
  // Checksums by node, each node's in the order taken.
  std::stable_sort(
      trace.checksums.begin(), trace.checksums.end(),
      [](const OutputChecksum& a, const OutputChecksum& b) { return a.node < b.node; });
  for (const PlacedRange& p : place_ranges(range_starts, range_ends, clock, end_tsc, windows,
                                           result, &result.range_lanes)) {
    SiteInfo info = Recorder::site(p.site);
    Node n;
    n.kind = info.kind == NodeKind::kBrick ? NodeKind::kBrick : NodeKind::kScope;
    n.name = names.site_name(p.site);
    n.brick_id = info.brick_id;
    n.category = info.category;
    n.start_ns = p.start_ns;
    n.end_ns = p.end_ns;
    n.thread = kRangeLaneBase + p.lane;
    trace.add_node(n);
  }
  return result;
}

Attached attach_gpu(GpuDump& dump, const LaunchIndex& launches, Trace& trace) {
  Attached result;
  const StagedRecords& staged = dump.records();
  for (size_t i = 0; i < staged.size(); ++i) {
    const StagedRecord& src = staged[i];
    Node n = src.node;
    GpuDetail d = src.detail;
    // As translate() staged them: an exit write may have attributed these
    // records in place before.
    n.parent = kNoNode;
    n.thread = 0;
    d.api_start_ns = d.api_end_ns = 0;
    d.python_stack = kNoPythonStack;
    auto launch = launches.by_correlation.find(d.correlation);
    if (launch == launches.by_correlation.end() && dump.recorded_launches_only()) {
      ++result.outside_capture;
      continue;
    }
    if (launch != launches.by_correlation.end()) {
      n.parent = launch->second.scope;
      n.thread = launch->second.thread;
      d.api_start_ns = launch->second.api_start_ns;
      d.api_end_ns = launch->second.api_end_ns;
      d.python_stack = launch->second.python_stack;
    }
    // Graph replays: the scope that captured the node beats the scope
    // around cudaGraphLaunch (often none, or a whole step).
    if (d.graph_node != 0) {
      auto captured = launches.scope_of_graph_node.find(dump.original_graph_node(d.graph_node));
      if (captured == launches.scope_of_graph_node.end())
        captured = launches.scope_of_graph_node.find(d.graph_node);
      if (captured != launches.scope_of_graph_node.end() && captured->second != kNoNode)
        n.parent = captured->second;
    }
    if (n.kind == NodeKind::kTransfer || n.kind == NodeKind::kMemset)
      dump.fill_addresses(n.kind, d);
    n.name = trace.strings.intern(staged.name(src));
    const uint32_t id = trace.add_gpu_node(n, d);
    if (n.parent != kNoNode) {
      trace.add_edge(n.parent, id, EdgeType::kLaunches);
    } else {
      ++result.orphans;
    }
  }
  dump.contribute_header(trace, result.outside_capture);
  return result;
}

}  // namespace brickprof::agent
