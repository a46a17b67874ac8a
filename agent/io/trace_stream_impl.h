// The streamed exit write's state, shared by its two files:
// trace_stream.cpp (the plan and the writers of each format) and
// trace_stream_walk.cpp (the depth-first walk). Internal to them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/io/checksum_events.h"
#include "agent/io/counter_events.h"
#include "agent/io/cpu_counter_events.h"
#include "agent/io/gpu_attribution.h"
#include "agent/io/memory_activity.h"
#include "agent/io/memory_events.h"
#include "agent/io/node_spill.h"
#include "agent/io/tile_events.h"
#include "agent/io/trace_stream.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/range_lanes.h"
#include "trace/derive/aggregate_tree.h"
#include "trace/derive/python_frames.h"
#include "trace/derive/stats.h"
#include "trace/output/trace_sink.h"

namespace brickprof::agent {

namespace mpi {
// From agent/mpi when it is linked in (not in the unit-test core library).
__attribute__((weak)) bool call_of(uint64_t recorded, uint64_t* elements,
                                   std::optional<CommCall>* call);  // agent/mpi/contribute.h
}  // namespace mpi

// A scope's element count as recorded, as written: an MPI call's scope
// carries a tag that becomes the call's count and figures (into *call).
inline uint64_t written_elements(uint64_t recorded, std::optional<CommCall>* call) {
  uint64_t elements = recorded;
  std::optional<CommCall> unused;
  if (mpi::call_of && mpi::call_of(recorded, &elements, call ? call : &unused)) return elements;
  return recorded;
}

// An open CPU node during the walk.
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

struct TraceStream::Impl final : TraceSource {
  class ThreadEmitter;
  struct ThreadState;
  class StreamTracks;  // trace_stream_perfetto.cpp

  Impl(std::vector<Recorder::ThreadEvents> t, const Clock& c, uint64_t end,
       std::vector<capture::Window> w, GpuDump* g, bool consume_events)
      : threads(std::move(t)),
        clock(c),
        end_tsc(end),
        windows(std::move(w)),
        gpu(g),
        memory_activity(g != nullptr ? g->memory_activity() : nullptr),
        consume(consume_events) {}
  ~Impl() override { budget::release(charged); }

  // Feeds one format's sink (trace_sink.h): nodes from the spill, the
  // ranges and the staged records; the walk's aggregate and statistics;
  // tracks through StreamTracks (trace_stream_perfetto.cpp).
  void feed(TraceSink& sink) override;

  void plan();
  void walk();
  // `call`, if given, gets the node's MPI call, if it is one's scope.
  Node cpu_node(uint32_t id, const SpilledNode& r, uint32_t tid, std::string_view* name,
                std::optional<CommCall>* call = nullptr);
  // visit(id, node, name, call or null) for every CPU node, in id order.
  template <typename Visit>
  void each_cpu_node(Visit visit) {
    size_t thread = 0;  // the thread whose id block holds the current id
    spill.scan([&](uint32_t id, const SpilledNode& r) {
      while (thread + 1 < threads.size() && first_id[thread + 1] <= id) ++thread;
      std::string_view name;
      std::optional<CommCall> call;
      const Node n = cpu_node(id, r, threads[thread].tid, &name, &call);
      visit(id, n, name, call ? &*call : nullptr);
    });
  }
  Node range_node(size_t i, std::string_view* name);
  uint32_t thread_of(uint32_t id) const;
  // pass 2
  StringId site_name(uint32_t site);
  StringId layer_name(uint64_t index);
  StringId gpu_name(const StagedRecord& r);
  int32_t brick_slot(uint32_t site, StringId name);
  uint32_t enter(const Node& node, const GpuDetail* detail, uint32_t parent_agg);
  uint32_t enter_cpu(const Node& node, const Opened& o, uint32_t parent_agg);
  void visit_gpu(uint32_t record, const Frame* parent);
  void visit_range(size_t i);
  // Python frames (trace_stream_python.cpp): the synthetic scopes `report`
  // makes of GPU work launched outside every scope, made at the walk's
  // start; a root one visited with all it holds.
  void group_python();
  Node python_node(uint32_t scope) const;
  void visit_python(uint32_t scope, uint32_t parent_agg, uint32_t cpu_parent_agg);
  std::string_view exemplar_text(StringId id) const { return exemplars.strings.view(id); }

  // The aggregate's share of the budget: a new entry, and its folded trie
  // node (as measured: the exemplar and its name, the entry, its index
  // slot; the trie node and its text).
  static constexpr uint64_t kEntryBytes = 352;
  bool charge(uint64_t bytes);
  uint32_t group(uint32_t tid);
  void add_time(uint32_t agg, int64_t duration_ns, uint32_t cpu_parent_agg);
  // Each node in id order: grouped under the Python frames' scopes, or
  // as recorded; with each GPU node's parent if `launchers`.
  void feed_nodes(TraceSink& sink, bool grouped, bool launchers);
  void feed_edges(TraceSink& sink);
  // A CPU-only rank's compute, for the Chrome trace's CPU work track.
  void feed_cpu_work(TraceSink& sink);
  // The tracks of the grouped trace (trace_stream_perfetto.cpp).
  void feed_tracks(TraceSink& sink);

  std::vector<Recorder::ThreadEvents> threads;
  Clock clock;
  uint64_t end_tsc;
  std::vector<capture::Window> windows;
  GpuAttribution gpu;
  MemoryActivityEvents memory_activity;
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

  // Memory events and shapes records, read in pass 1 for the header.
  MemoryEvents memory;
  // The program's output digests (brickprof_checksum), read in pass 1.
  ChecksumEvents checksums;
  // The program's counter samples and tokens, read in pass 1 for the header.
  CounterEvents counters;
  // Tiles added up per node, thread and level, read in pass 1 for the header.
  TileEvents tiles;
  // What the CPU counters counted per node, read in pass 1 for the header.
  CpuCounterEvents cpu_counters;

  // Python frames: in pass 1, the root scope starts of each thread that
  // may end a run of launches (the first after each launch outside every
  // scope with a Python stack); at the walk's start, the scopes.
  struct Child {
    uint32_t scope;  // its synthetic parent
    int64_t start_ns;
    uint32_t id;     // its node id
    uint32_t index;  // a scope, or a staged record
    bool is_scope;
  };
  struct PythonGroups {
    RootStarts roots;
    std::vector<PythonScope> scopes;
    std::vector<StringId> names;                          // each scope's, in exemplars.strings
    std::vector<uint32_t> scope_of;                       // by staged record: its scope, or kNoNode
    std::vector<uint32_t> roots_in_order;                 // root scopes by (start, id)
    std::vector<Child> children;                          // by (scope, start, id)
    std::vector<uint32_t> first_child;                    // by scope: where its children start
    std::map<uint32_t, std::vector<uint32_t>> by_thread;  // in slice order
    uint32_t first_id = 0;                                // report's id of scope 0
    uint32_t id(uint32_t scope) const { return first_id + scope; }
    bool grouped(uint32_t record) const { return !scope_of.empty() && scope_of[record] != kNoNode; }
  } python;

  // pass 2
  Trace header;  // as given, with what the walk found to say
  // The GPU streams with work, and whether a communication kernel ran.
  std::optional<std::set<std::pair<uint32_t, uint32_t>>> streams;
  bool nccl_kernels = false;
  bool walked = false;
  uint64_t charged = 0;         // taken from the budget for the aggregate
  bool aggregate_full = false;  // the budget refused it: no tree, DOT, folded
  Trace exemplars;              // each aggregate entry's first member, names interned here
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

}  // namespace brickprof::agent
