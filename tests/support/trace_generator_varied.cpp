// Varied synthetic traces for property tests (see trace_generator.h): the
// threads act in time order (always the one whose clock is earliest), so
// every stream sees its work in issue order and a host wait knows all the
// work issued before it.
#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "tests/support/trace_generator.h"
#include "trace/model/bricks.h"

namespace brickprof {
namespace {

constexpr const char* kScopeNames[] = {"step", "decode token", "load", "sample", "prefill"};
constexpr const char* kKernelNames[] = {"gemv", "rms_norm", "softmax", "rope", "add"};

struct Open {
  uint32_t node;
  int remaining;  // actions before it closes
};

struct ThreadState {
  uint32_t index = 0;
  uint32_t tid = 0;
  int64_t clock = 0;
  std::vector<Open> stack;
  int top_left = 0;              // top-level scopes still to open
  uint32_t last_top = kNoNode;   // for sequence edges
  std::vector<uint32_t> closed;  // scopes that ended (graph capture scopes)
  std::vector<uint64_t> events;  // recorded by this thread
  bool done() const { return stack.empty() && top_left == 0; }
};

class Generator {
 public:
  explicit Generator(const VariedConfig& c)
      : rng_{0x2545F4914F6CDD1Dull ^ (c.seed * 0x9E3779B97F4A7C15ull)}, budget_(c.nodes) {}
  Trace run();

 private:
  int64_t step() { return q_ * rng_.range(0, 3); }  // 0 makes equal timestamps
  uint32_t lane(uint32_t device, uint32_t stream) const { return device * 64 + stream; }
  uint32_t pick_stream(const ThreadState& th) {
    return 10 + 4 * th.index + static_cast<uint32_t>(rng_.range(0, streams_per_thread_ - 1));
  }
  int64_t& free_at(uint32_t device, uint32_t stream) { return free_at_[lane(device, stream)]; }
  uint32_t current(const ThreadState& th) const {
    return th.stack.empty() ? kNoNode : th.stack.back().node;
  }
  void act(ThreadState& th);
  void open_scope(ThreadState& th, bool top);
  void close_scope(ThreadState& th);
  uint32_t gpu_op(ThreadState& th, NodeKind kind, std::string_view name, GpuDetail d,
                  int64_t duration, bool blocking, uint32_t parent);
  void kernel(ThreadState& th);
  void copy(ThreadState& th);
  void marker(ThreadState& th, bool record);
  void host_wait(ThreadState& th);
  void graph_replay(ThreadState& th);
  void finish();

  TraceRng rng_;
  uint32_t budget_;
  Trace t_;
  int64_t q_ = 1;
  int64_t last_issue_ = -1;
  bool api_times_ = true, wrapped_ = false;
  int devices_ = 1, streams_per_thread_ = 1;
  std::vector<ThreadState> threads_;
  std::map<uint32_t, int64_t> free_at_;     // per (device, stream) lane
  std::map<uint64_t, int64_t> event_done_;  // when the latest record's work was done
  uint64_t correlation_ = 1, next_graph_ = 1;
};

void Generator::open_scope(ThreadState& th, bool top) {
  Node n;
  const int depth = static_cast<int>(th.stack.size());
  const int pick = static_cast<int>(rng_.range(0, 2));
  if (top && wrapped_) {
    n.kind = NodeKind::kScope;
    n.name = t_.strings.intern("root");
  } else if (pick == 0 && depth < 2) {
    n.kind = NodeKind::kLayer;
    n.layer_index = static_cast<int32_t>(rng_.range(0, 3));
    n.name = t_.strings.intern("Layer " + std::to_string(n.layer_index));
  } else if (pick == 1) {
    const int id = static_cast<int>(rng_.range(0, kBrickCount - 1));
    n.kind = NodeKind::kBrick;
    n.brick_id = static_cast<int16_t>(id);
    n.category = brick_category(id);
    n.name = t_.strings.intern(brick_name(id));
    n.elements = static_cast<uint64_t>(rng_.range(0, 4096));
    if (rng_.chance(30)) {
      n.flops = 1e6 * static_cast<double>(rng_.range(1, 100));
      n.bytes_moved = 1e5 * static_cast<double>(rng_.range(1, 100));
    }
  } else {
    n.kind = NodeKind::kScope;
    n.name = t_.strings.intern(kScopeNames[rng_.range(0, std::size(kScopeNames) - 1)]);
  }
  n.parent = current(th);
  n.thread = th.tid;
  n.start_ns = n.end_ns = th.clock;
  const uint32_t id = t_.add_node(n);
  if (n.parent != kNoNode) t_.add_edge(n.parent, id, EdgeType::kContains);
  if (top && th.last_top != kNoNode && t_.nodes[th.last_top].end_ns < th.clock && rng_.chance(30))
    t_.add_edge(th.last_top, id, EdgeType::kSequence);
  if (top) th.last_top = id;
  const int remaining = top && wrapped_   ? 1 << 30
                        : rng_.chance(10) ? 0
                                          : static_cast<int>(rng_.range(1, 8));
  th.stack.push_back({id, remaining});
}

void Generator::close_scope(ThreadState& th) {
  if (rng_.chance(50)) th.clock += step();
  const uint32_t id = th.stack.back().node;
  t_.nodes[id].end_ns = th.clock;
  th.closed.push_back(id);
  th.stack.pop_back();
  if (th.stack.empty()) th.top_left--;
}

// One GPU operation issued now by `th`: the API call, then the work on its
// stream once the stream is free.
uint32_t Generator::gpu_op(ThreadState& th, NodeKind kind, std::string_view name, GpuDetail d,
                           int64_t duration, bool blocking, uint32_t parent) {
  const int64_t api = std::max(th.clock, last_issue_ + 1);
  last_issue_ = api;
  int64_t& free = free_at(d.device, d.stream);
  Node n;
  n.kind = kind;
  n.name = t_.strings.intern(name);
  n.parent = parent;
  n.thread = th.tid;
  n.start_ns = std::max(api + step(), free);
  n.end_ns = n.start_ns + duration;
  free = n.end_ns;
  int64_t api_end = api + q_ * rng_.range(1, 3);
  if (blocking) api_end = std::max(api_end, n.end_ns + step());
  d.correlation = correlation_++;
  if (api_times_) {
    d.api_start_ns = api;
    d.api_end_ns = api_end;
  }
  th.clock = api_end;
  const uint32_t id = t_.add_gpu_node(n, d);
  if (parent != kNoNode) t_.add_edge(parent, id, EdgeType::kLaunches);
  return id;
}

void Generator::kernel(ThreadState& th) {
  GpuDetail d;
  d.device = static_cast<uint32_t>(rng_.range(0, devices_ - 1));
  d.stream = pick_stream(th);
  d.grid[0] = static_cast<uint32_t>(rng_.range(1, 256));
  d.grid[1] = d.grid[2] = 1;
  d.block[0] = 128;
  d.block[1] = d.block[2] = 1;
  d.ptx_hash = 0xAB00 + static_cast<uint64_t>(rng_.range(0, 3));
  const int64_t duration = rng_.chance(10) ? 0 : q_ * rng_.range(1, 40);
  const uint32_t id =
      gpu_op(th, NodeKind::kKernel, kKernelNames[rng_.range(0, std::size(kKernelNames) - 1)], d,
             duration, false, current(th));
  if (rng_.chance(20)) {
    t_.nodes[id].flops = 1e5 * static_cast<double>(rng_.range(1, 50));
    t_.nodes[id].bytes_moved = 1e4 * static_cast<double>(rng_.range(1, 50));
  }
}

void Generator::copy(ThreadState& th) {
  GpuDetail d;
  d.device = static_cast<uint32_t>(rng_.range(0, devices_ - 1));
  d.stream = pick_stream(th);
  const int dir = static_cast<int>(rng_.range(0, 5));
  const bool memset = dir == 5;
  d.direction = dir < 2 ? Direction::kH2D : dir < 4 ? Direction::kD2H : Direction::kD2D;
  constexpr uint64_t kSizes[] = {0, 4096, 1 << 20, 8 << 20};
  d.bytes = kSizes[rng_.range(0, 3)];
  const bool pageable = rng_.chance(30);
  const uint64_t host = 0x7f0000000000ull + (static_cast<uint64_t>(rng_.range(0, 2)) << 24);
  const uint64_t device_addr = 0x500000000ull + (static_cast<uint64_t>(rng_.range(0, 2)) << 24);
  MemoryKind host_kind = pageable ? MemoryKind::kPageable : MemoryKind::kPinned;
  if (d.direction == Direction::kH2D) {
    d.src_addr = host, d.dst_addr = device_addr;
    d.src_kind = host_kind, d.dst_kind = MemoryKind::kDevice;
  } else if (d.direction == Direction::kD2H) {
    d.src_addr = device_addr, d.dst_addr = host;
    d.src_kind = MemoryKind::kDevice, d.dst_kind = host_kind;
  } else {
    d.src_addr = device_addr, d.dst_addr = device_addr + 4096;
    d.src_kind = d.dst_kind = MemoryKind::kDevice;
  }
  // 1 to 25 bytes/ns (GB/s): some copies are slow.
  const int64_t duration =
      rng_.chance(10) ? 0
                      : std::max<int64_t>(1, static_cast<int64_t>(d.bytes) / rng_.range(1, 25) +
                                                 q_ * rng_.range(0, 2));
  const bool blocking = !memset && (pageable || rng_.chance(20));
  if (memset) {
    d.direction = Direction::kUnknown;
    d.src_kind = d.dst_kind = MemoryKind::kUnknown;
    d.src_addr = 0;
  }
  gpu_op(th, memset ? NodeKind::kMemset : NodeKind::kTransfer,
         memset     ? "cuMemsetD32Async"
         : blocking ? "cuMemcpy"
                    : "cuMemcpyAsync",
         d, duration, blocking, current(th));
}

// cudaEventRecord (record) or cudaStreamWaitEvent on a stream of this
// thread: markers, issued like work, of no GPU time.
void Generator::marker(ThreadState& th, bool record) {
  // Without API times a stream is ordered by GPU start, and a marker (a
  // host call's time) cannot be placed among work queued before it: such
  // traces (hand-made) have none.
  if (!api_times_) return;
  GpuDetail d;
  d.device = static_cast<uint32_t>(rng_.range(0, devices_ - 1));
  d.stream = pick_stream(th);
  if (record) {
    d.sync = SyncKind::kEvent;
    d.event = 1000 * (th.index + 1) + th.events.size();
  } else {
    if (th.events.empty()) return;
    d.sync = SyncKind::kStreamWait;
    d.event =
        th.events[static_cast<size_t>(rng_.range(0, static_cast<int64_t>(th.events.size()) - 1))];
  }
  const int64_t api = std::max(th.clock, last_issue_ + 1);
  last_issue_ = api;
  int64_t& free = free_at(d.device, d.stream);
  if (record) {
    event_done_[d.event] = std::max(free, api);
    th.events.push_back(d.event);
  } else {
    free = std::max(free, event_done_[d.event]);  // later work on it waits for the event
  }
  Node n;
  n.kind = NodeKind::kSync;
  n.name = t_.strings.intern(record ? "cudaEventRecord" : "cudaStreamWaitEvent");
  n.parent = current(th);
  n.thread = th.tid;
  n.start_ns = api;
  n.end_ns = api + q_ * rng_.range(1, 2);
  if (api_times_) {
    d.api_start_ns = n.start_ns;
    d.api_end_ns = n.end_ns;
  }
  d.correlation = correlation_++;
  th.clock = n.end_ns;
  t_.add_gpu_node(n, d);
}

// A host synchronise: of a stream, a context, a device, or an event; it
// returns after the work it waits for was done.
void Generator::host_wait(ThreadState& th) {
  GpuDetail d;
  d.device = static_cast<uint32_t>(rng_.range(0, devices_ - 1));
  const int kind = static_cast<int>(rng_.range(0, 3));
  const int64_t api = std::max(th.clock, last_issue_ + 1);
  last_issue_ = api;
  int64_t done = api;
  const char* name = "cudaStreamSynchronize";
  if (kind == 0) {
    d.sync = SyncKind::kStream;
    // Any thread's stream of that device.
    d.stream = 10 +
               4 * static_cast<uint32_t>(rng_.range(0, static_cast<int64_t>(threads_.size()) - 1)) +
               static_cast<uint32_t>(rng_.range(0, streams_per_thread_ - 1));
    done = std::max(done, free_at(d.device, d.stream));
  } else if (kind == 1 || kind == 2) {
    d.sync = kind == 1 ? SyncKind::kContext : SyncKind::kDevice;
    name = kind == 1 ? "cuCtxSynchronize" : "cudaDeviceSynchronize";
    for (const auto& [l, free] : free_at_)
      if (l / 64 == d.device) done = std::max(done, free);
  } else {
    d.sync = SyncKind::kEvent;
    name = "cudaEventSynchronize";
    if (!th.events.empty() && rng_.chance(80)) {
      d.event =
          th.events[static_cast<size_t>(rng_.range(0, static_cast<int64_t>(th.events.size()) - 1))];
      // The latest record of it: the one the wait is matched with.
      done = std::max(done, event_done_[d.event]);
    } else {
      d.event = 999'999;  // never recorded: returns at once
    }
  }
  Node n;
  n.kind = NodeKind::kSync;
  n.name = t_.strings.intern(name);
  n.parent = current(th);
  n.thread = th.tid;
  n.start_ns = api;
  n.end_ns = std::max(api + q_, done + step());
  if (api_times_) {
    d.api_start_ns = n.start_ns;
    d.api_end_ns = n.end_ns;
  }
  th.clock = n.end_ns;
  t_.add_gpu_node(n, d);
}

// cuGraphLaunch: a few kernels of one stream carrying the launch's API
// times, under the scope that captured them (an earlier one, or the scope
// open now); or the whole replay as one interval.
void Generator::graph_replay(ThreadState& th) {
  GpuDetail d;
  d.device = static_cast<uint32_t>(rng_.range(0, devices_ - 1));
  d.stream = pick_stream(th);
  const uint32_t parent = !th.closed.empty() && rng_.chance(40)
                              ? th.closed[static_cast<size_t>(
                                    rng_.range(0, static_cast<int64_t>(th.closed.size()) - 1))]
                              : current(th);
  const uint32_t graph = static_cast<uint32_t>(next_graph_++);
  if (rng_.chance(30)) {
    d.graph_id = graph;
    gpu_op(th, NodeKind::kKernel, "CUDA graph " + std::to_string(graph), d, q_ * rng_.range(1, 60),
           false, parent);
    return;
  }
  const int64_t api = std::max(th.clock, last_issue_ + 1);
  last_issue_ = api;
  const int64_t api_end = api + q_ * rng_.range(1, 3);
  int64_t& free = free_at(d.device, d.stream);
  const int kernels = static_cast<int>(rng_.range(2, 4));
  for (int k = 0; k < kernels; ++k) {
    GpuDetail kd = d;
    kd.graph_node = static_cast<uint64_t>(k + 1);
    kd.correlation = correlation_++;
    if (api_times_) {
      kd.api_start_ns = api;
      kd.api_end_ns = api_end;
    }
    Node n;
    n.kind = NodeKind::kKernel;
    n.name = t_.strings.intern(kKernelNames[k % std::size(kKernelNames)]);
    n.parent = parent;
    n.thread = th.tid;
    n.start_ns = std::max(api + step(), free);
    n.end_ns = n.start_ns + (rng_.chance(10) ? 0 : q_ * rng_.range(1, 20));
    free = n.end_ns;
    t_.add_gpu_node(n, kd);
  }
  th.clock = api_end;
}

void Generator::act(ThreadState& th) {
  if (th.stack.empty()) {
    if (!wrapped_ && rng_.chance(15)) {  // GPU work launched outside every scope
      kernel(th);
      return;
    }
    th.clock += rng_.chance(30) ? 0 : q_ * rng_.range(1, 10);
    open_scope(th, true);
    return;
  }
  Open& top = th.stack.back();
  if (t_.nodes.size() >= budget_ && !wrapped_) top.remaining = 0;
  if (t_.nodes.size() >= budget_ && wrapped_)
    for (Open& o : th.stack) o.remaining = 0;
  if (top.remaining <= 0) {
    close_scope(th);
    return;
  }
  top.remaining--;
  const int64_t r = rng_.range(0, 99);
  if (r < 16 && th.stack.size() < 5)
    open_scope(th, false);
  else if (r < 42)
    kernel(th);
  else if (r < 54)
    copy(th);
  else if (r < 60)
    marker(th, true);
  else if (r < 65)
    marker(th, false);
  else if (r < 72)
    host_wait(th);
  else if (r < 77)
    graph_replay(th);
  else
    th.clock += q_ * rng_.range(0, 20);  // CPU work
}

// Capture windows (some traces): only what lies wholly inside one is kept,
// as the recorder keeps it; a kept node whose parent is gone goes under its
// nearest kept ancestor.
void Generator::finish() {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const Node& n : t_.nodes) {
    lo = std::min(lo, n.start_ns);
    hi = std::max(hi, n.end_ns);
    if (const GpuDetail* d = t_.detail(n); d && d->api_start_ns) hi = std::max(hi, d->api_end_ns);
  }
  if (t_.nodes.empty()) return;
  t_.process.start_ns = lo;
  t_.process.end_ns = hi;
  // Edges between work on different threads, forward in time.
  const size_t n = t_.nodes.size();
  for (size_t k = 0; k < n / 15; ++k) {
    const uint32_t a = static_cast<uint32_t>(rng_.range(0, static_cast<int64_t>(n) - 1));
    const uint32_t b = static_cast<uint32_t>(rng_.range(0, static_cast<int64_t>(n) - 1));
    const Node &u = t_.nodes[a], &v = t_.nodes[b];
    auto plain = [&](const Node& x) { return x.kind == NodeKind::kKernel || is_cpu_kind(x.kind); };
    if (!plain(u) || !plain(v) || u.thread == v.thread || u.end_ns >= v.start_ns) continue;
    t_.add_edge(a, b, EdgeType::kDependsOn);
  }
  if (wrapped_ || !rng_.chance(25) || hi - lo < 4) return;
  std::vector<TimeRange> windows;
  const int64_t span = hi - lo;
  const int count = static_cast<int>(rng_.range(1, 3));
  int64_t at = lo + rng_.range(0, span / 8);
  for (int w = 0; w < count && at < hi; ++w) {
    const int64_t end = std::min(hi, at + rng_.range(span / 8, span / 2));
    windows.push_back({at, end});
    at = end + rng_.range(1, span / 6 + 1);
  }
  auto inside = [&](int64_t a, int64_t b) {
    for (const TimeRange& w : windows)
      if (w.start_ns <= a && b <= w.end_ns) return true;
    return false;
  };
  std::vector<uint32_t> renumber(n, kNoNode);
  Trace kept;
  kept.process = t_.process;
  kept.devices = t_.devices;
  kept.threads = t_.threads;
  kept.strings = t_.strings;
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t_.nodes[i];
    const GpuDetail* d = t_.detail(node);
    int64_t a = node.start_ns, b = node.end_ns;
    if (d && d->api_start_ns) a = std::min(a, d->api_start_ns), b = std::max(b, d->api_end_ns);
    if (!inside(a, b)) continue;
    Node copy = node;
    uint32_t p = node.parent;
    while (p != kNoNode && renumber[p] == kNoNode) p = t_.nodes[p].parent;
    copy.parent = p == kNoNode ? kNoNode : renumber[p];
    copy.detail = kNoDetail;
    renumber[i] = d ? kept.add_gpu_node(copy, *d) : kept.add_node(copy);
  }
  for (const Edge& e : t_.edges)
    if (renumber[e.src] != kNoNode && renumber[e.dst] != kNoNode &&
        (e.type == EdgeType::kSequence || e.type == EdgeType::kDependsOn ||
         kept.nodes[renumber[e.dst]].parent == renumber[e.src]))
      kept.add_edge(renumber[e.src], renumber[e.dst], e.type);
  kept.diagnostics.capture = "scope:step";
  kept.diagnostics.capture_windows = windows;
  t_ = std::move(kept);
}

Trace Generator::run() {
  q_ = std::array<int64_t, 3>{1, 10, 1000}[rng_.range(0, 2)];
  api_times_ = !rng_.chance(15);
  wrapped_ = rng_.chance(30);
  devices_ = static_cast<int>(rng_.range(1, 3));
  streams_per_thread_ = static_cast<int>(rng_.range(1, 3));
  const int threads = static_cast<int>(rng_.range(1, 4));
  t_.process.program = "varied";
  t_.process.pid = 4242;
  for (int d = 0; d < devices_; ++d)
    if (rng_.chance(70))
      t_.devices.push_back(Device{static_cast<uint32_t>(d), "Varied GPU " + std::to_string(d), 80,
                                  1500, 2000, 4096, 50000, 2000, "device attributes"});
  for (int i = 0; i < threads; ++i) {
    ThreadState th;
    th.index = static_cast<uint32_t>(i);
    th.tid = 100 + static_cast<uint32_t>(i);
    th.clock = q_ * rng_.range(1, 5);  // 0 would read as "no API time"
    th.top_left = wrapped_ ? 1 : static_cast<int>(rng_.range(1, 5));
    threads_.push_back(th);
    if (rng_.chance(50)) t_.threads.push_back({th.tid, "worker " + std::to_string(i)});
  }
  while (true) {
    ThreadState* next = nullptr;
    for (ThreadState& th : threads_)
      if (!th.done() && (!next || th.clock < next->clock)) next = &th;
    if (!next) break;
    act(*next);
  }
  if (!wrapped_ && rng_.chance(20)) {  // an NVTX start/end range: an annotation, not work
    Node range;
    range.kind = NodeKind::kScope;
    range.name = t_.strings.intern("async load");
    range.thread = kRangeLaneBase;
    range.start_ns = t_.nodes.empty() ? 0 : t_.nodes.front().start_ns;
    range.end_ns = range.start_ns + q_ * rng_.range(0, 100);
    t_.add_node(range);
  }
  finish();
  return std::move(t_);
}

}  // namespace

Trace generate_varied_trace(const VariedConfig& config) { return Generator(config).run(); }

}  // namespace brickprof
