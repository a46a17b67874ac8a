// One thread's events read as nodes: pushes and marks open nodes, pops and
// capture-window edges close them, the rest (work, CUDA calls, graph nodes,
// ranges) attach to the innermost open node. The streaming exit write
// (io/trace_stream.h) walks with this, and so does the tests' whole-Trace
// oracle (tests/agent/support/replay_oracle.h): they cannot disagree on a
// node's id, parent or times.
//
// The walk is pull-based so the streaming write can interleave threads:
// peek() shows the next event (its capture-window edge already applied, which
// may close every open node), take() handles it. A Visitor provides:
//   void open(uint32_t id, uint32_t parent, const Opened& o)
//       a push (opens `id`) or a mark (opened, then closed at once)
//   void close(uint32_t id, int64_t end_ns, bool clamp)   innermost first; with
//       `clamp` (a window edge, exit), never before the node's start
//   void work(uint32_t top, double flops, double bytes)
//   void launch(uint64_t correlation, uint32_t top, int64_t api_start_ns, int64_t api_end_ns,
//               uint32_t python_stack)   the stack as the trace numbers it (kNoPythonStack: none)
//   void graph_node(uint64_t graph_node_id, uint32_t top)
//   void range_start(uint64_t range_id, uint64_t tsc, uint32_t site)
//   void range_end(uint64_t range_id, uint64_t tsc)
//   void memory(const MemoryEvent& e, uint32_t name_site)   its scope the innermost open node,
//       its thread this one's, its name left for the visitor (the site of the API or pool)
//   void shapes(uint32_t top, uint32_t signature_site)   shapes for the innermost open node
//   void checksum(uint32_t top, uint32_t name_site, uint64_t index)   a digest (checksum_table.h)
//       for the innermost open node, kNoNode outside every node
//   void counter(const CounterSample& s, uint32_t name_site)   a program's counter sample or
//       tokens, its scope the innermost open node, its name left for the visitor (kTokens: none)
//   void tile(const TileStats& s)   one level's tiles of a kTile record, its node the
//       innermost open node (kNoNode outside every node), its thread this one's
//   void cpu_counters(uint32_t node, const uint64_t* values)   what the CPU counters counted
//       in `node` (cpu_counters::event_names() order), just before its pop
//   void consumed(const Recorder::Segment& segment)   a segment was read to its end
// (`top` is kNoNode outside every node).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {

// What a push or mark opens.
struct Opened {
  uint32_t site;
  SiteInfo info;
  uint64_t arg;  // a push's element count or layer index; 0 for a mark
  int64_t start_ns;
  bool mark;
};

// Counts a walk keeps for the trace's diagnostics.
struct WalkCounts {
  uint64_t unbalanced_pops = 0;  // pops, and range ends, without a start
  uint64_t open_scopes_at_exit = 0;
  // With capture windows: pops of scopes opened before a window, and scopes
  // still open when it closed (closed there). Not errors of the program.
  uint64_t scopes_cut_by_capture = 0;
};

template <typename Visitor>
class ThreadWalk {
 public:
  // Node ids of this thread start at `first_id`. `windows`: in order, none
  // when the whole run was recorded.
  ThreadWalk(const Recorder::ThreadEvents& te, uint32_t first_id, const Clock& clock,
             uint64_t end_tsc, const std::vector<capture::Window>& windows, WalkCounts& counts)
      : te_(te),
        next_id_(first_id),
        clock_(clock),
        end_tsc_(end_tsc),
        windows_(windows),
        counts_(counts) {}

  // The next event, its window edge applied; nullptr when none is left
  // (then call finish()).
  const Event* peek(Visitor& v) {
    if (peeked_ || done_) return peeked_;
    while (w_ == end_) {
      if (segment_ > 0) v.consumed(te_.segments[segment_ - 1]);
      if (segment_ == te_.segments.size()) {
        done_ = true;
        return nullptr;
      }
      const Recorder::Segment& s = te_.segments[segment_++];
      w_ = s.words;
      end_ = s.words + s.count;
    }
    const Event* e = reinterpret_cast<const Event*>(w_);
    last_tsc_ = e->type() == EventType::kCudaApi ? e->b : e->tsc;
    if (!windows_.empty()) {
      // By the call's end for CUDA calls: one that began before a window
      // opened was recorded because it returned inside it.
      size_t before = started_;
      while (started_ < windows_.size() && windows_[started_].start_tsc <= last_tsc_) ++started_;
      if (started_ != before && before > 0 && !open_.empty()) {
        // Open when window `before - 1` closed: they end there.
        counts_.scopes_cut_by_capture += open_.size();
        pops_of_cut_ += open_.size();
        close_all(v, clock_.to_ns(windows_[before - 1].end_tsc));
      }
    }
    peeked_ = e;
    return e;
  }

  // Handles the event peek() returned.
  void take(Visitor& v) {
    const Event& e = *peeked_;
    peeked_ = nullptr;
    w_ += e.words();
    const uint32_t top = open_.empty() ? kNoNode : open_.back();
    switch (e.type()) {
      case EventType::kPush:
      case EventType::kMark: {
        const uint32_t id = next_id_++;
        const bool mark = e.type() == EventType::kMark;
        // A mark has no payload word: its `a` is not read.
        const Opened o{e.site(), Recorder::site(e.site()), mark ? 0 : e.a, clock_.to_ns(e.tsc),
                       mark};
        v.open(id, top, o);
        if (mark)
          v.close(id, o.start_ns, false);
        else
          open_.push_back(id);
        break;
      }
      case EventType::kPop:
        if (open_.empty()) {
          // Opened before its capture window, or ended at an earlier
          // window's edge (counted then): the windows cut it.
          if (windows_.empty())
            ++counts_.unbalanced_pops;
          else if (pops_of_cut_ > 0)
            --pops_of_cut_;
          else
            ++counts_.scopes_cut_by_capture;
        } else {
          v.close(open_.back(), clock_.to_ns(e.tsc), false);
          open_.pop_back();
        }
        break;
      case EventType::kWork:
        if (top != kNoNode) v.work(top, double_of(e.a), double_of(e.b));
        break;
      case EventType::kCudaApi:
        v.launch(e.a & 0xffffffffu, top, clock_.to_ns(e.tsc), clock_.to_ns(e.b),
                 e.a >> 32 == 0 ? kNoPythonStack : static_cast<uint32_t>(e.a >> 32) - 1);
        break;
      case EventType::kGraphNode:
        v.graph_node(e.a, top);
        break;
      case EventType::kRangeStart:
        v.range_start(e.a, e.tsc, e.site());
        break;
      case EventType::kRangeEnd:
        v.range_end(e.a, e.tsc);
        break;
      case EventType::kMemory:
        v.memory(memory_event(e, top), e.site());
        break;
      case EventType::kShapes:
        if (top != kNoNode) v.shapes(top, e.site());
        break;
      case EventType::kChecksum:
        v.checksum(top, e.site(), e.a);
        break;
      case EventType::kCounter:
        v.counter(counter_sample(e, top), e.site());
        break;
      case EventType::kTile:
        tiles(e, top, v);
        break;
      case EventType::kCpuCounters:
        if (top != kNoNode) v.cpu_counters(top, reinterpret_cast<const uint64_t*>(&e) + 2);
        break;
    }
  }

  // After the last event: a thread cut off at the memory cap ends where its
  // record ends; scopes open at exit end at exit, and those open when the
  // last window closed end there. Only the middle ones are "open at exit".
  void finish(Visitor& v) {
    uint64_t close_tsc = end_tsc_;
    if (te_.truncated) {
      close_tsc = last_tsc_;
    } else if (started_ > 0 && windows_[started_ - 1].end_tsc != 0) {
      close_tsc = windows_[started_ - 1].end_tsc;
      counts_.scopes_cut_by_capture += open_.size();
    } else {
      counts_.open_scopes_at_exit += open_.size();
    }
    close_all(v, clock_.to_ns(close_tsc));
  }

  // Walks every event, then finishes.
  void run(Visitor& v) {
    while (peek(v)) take(v);
    finish(v);
  }

  bool inside_node() const { return !open_.empty(); }
  uint32_t next_id() const { return next_id_; }
  uint32_t tid() const { return te_.tid; }

 private:
  // A kTile record (recorder.h): each level that has tiles.
  void tiles(const Event& e, uint32_t top, Visitor& v) const {
    const uint64_t* w = reinterpret_cast<const uint64_t*>(&e) + 2;
    for (uint32_t level = 0; level < kTileLevels; ++level, w += 4) {
      if (w[0] == 0) continue;
      TileStats s;
      s.node = top;
      s.thread = te_.tid;
      s.level = static_cast<TileLevel>(level);
      s.count = w[0];
      s.total_ns = clock_.span_ns(w[1]);
      s.elements = w[2];
      s.bytes = w[3];
      v.tile(s);
    }
  }
  // A kCounter record (Recorder::counter, Recorder::tokens) as the trace's sample.
  CounterSample counter_sample(const Event& e, uint32_t top) const {
    CounterSample s;
    s.time_ns = clock_.to_ns(e.tsc);
    s.thread = te_.tid;
    s.scope = top;
    s.kind = e.b == static_cast<uint64_t>(CounterKind::kTokens) ? CounterKind::kTokens
                                                                : CounterKind::kValue;
    s.value = double_of(e.a);
    return s;
  }
  // A kMemory record (recorder.h, pack_memory) as the trace's event.
  MemoryEvent memory_event(const Event& e, uint32_t top) const {
    const uint64_t* w = reinterpret_cast<const uint64_t*>(&e);
    const uint64_t packed = w[4];
    MemoryEvent m;
    m.time_ns = clock_.to_ns(e.tsc);
    m.thread = te_.tid;
    m.scope = top;
    m.op = static_cast<MemoryOp>(packed & 0xf);
    m.source = static_cast<MemorySource>(packed >> 4 & 0xf);
    const uint32_t device = packed >> 8 & 0xff;
    m.device = device == 0xff ? kHostDeviceId : device;
    m.result = static_cast<int32_t>(packed >> 16 & 0xffff);
    const uint32_t stack = static_cast<uint32_t>(packed >> 32);
    m.python_stack = stack == 0 ? kNoPythonStack : stack - 1;
    m.address = e.a;
    m.bytes = e.b;
    m.stream = w[5];
    m.pool = w[6];
    return m;
  }
  static double double_of(uint64_t bits) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  // Ends every open node at `close_ns` (never before its start: the visitor
  // clamps), innermost first.
  void close_all(Visitor& v, int64_t close_ns) {
    for (size_t i = open_.size(); i-- > 0;) v.close(open_[i], close_ns, true);
    open_.clear();
  }

  const Recorder::ThreadEvents& te_;
  uint32_t next_id_;
  const Clock& clock_;
  uint64_t end_tsc_;
  const std::vector<capture::Window>& windows_;
  WalkCounts& counts_;
  std::vector<uint32_t> open_;
  size_t segment_ = 0;
  const uint64_t* w_ = nullptr;
  const uint64_t* end_ = nullptr;
  const Event* peeked_ = nullptr;
  bool done_ = false;  // every segment consumed
  uint64_t last_tsc_ = 0;
  size_t started_ = 0;      // windows opened at or before the current event
  size_t pops_of_cut_ = 0;  // pops still to come of scopes ended at a window's edge
};

}  // namespace brickprof::agent
