// Synthetic trace generator (see trace_generator.h).
#include "tests/support/trace_generator.h"

#include <string>

#include "trace/model/bricks.h"

namespace brickprof {

uint64_t events_per_layer(const GeneratorConfig& c) {
  // layer + bricks x (brick + kernels) + H2D copy + record + wait + sync
  // (+ the all-reduce of a rank)
  return 1 + static_cast<uint64_t>(c.bricks_per_layer) * (1 + c.kernels_per_brick) + 4 +
         (c.world_size > 0 ? 1 : 0);
}

namespace {

constexpr int kLayerBricks[] = {0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

// Builds one trace of generate_trace. The output is a fixture (same config,
// same bytes), so the steps draw from the RNG and intern names in one fixed
// order: per thread, layer by layer, brick by brick.
class Generator {
 public:
  explicit Generator(const GeneratorConfig& c) : c_(c), rng_{0x9E3779B97F4A7C15ull ^ c.seed} {}

  Trace run() {
    const uint64_t per_layer = events_per_layer(c_);
    const uint64_t layers = (c_.target_events + per_layer - 1) / per_layer;
    t_.process.program = "generated";
    t_.process.pid = 1;
    t_.devices.push_back(
        Device{0, "Generated GPU", 132, 1980, 2619, 5120, 60000, 3350, "device attributes"});
    t_.nodes.reserve(layers * per_layer);
    t_.gpu.reserve(layers * per_layer);
    t_.edges.reserve(layers * per_layer * 2);
    intern_kernel_names();
    copy_ = t_.strings.intern("cudaMemcpyAsync");
    record_ = t_.strings.intern("cudaEventRecord");
    wait_ = t_.strings.intern("cudaStreamWaitEvent");
    sync_ = t_.strings.intern("cudaStreamSynchronize");
    allreduce_ = c_.world_size > 0 ? t_.strings.intern("MPI_Allreduce") : 0;
    if (c_.world_size > 0) rank_header();
    for (uint32_t th = 0; th < c_.threads; ++th) {
      tid_ = 1000 + th;
      main_stream_ = 10 + 2 * th;
      side_stream_ = 11 + 2 * th;
      cpu_ = 1000 * th;
      gpu_[0] = gpu_[1] = cpu_;
      for (uint64_t l = th; l < layers; l += c_.threads) add_layer(l);
    }
    return std::move(t_);
  }

 private:
  void intern_kernel_names() {
    for (int b = 0; b < kBrickCount; ++b)
      for (int k = 0; k < 4; ++k)
        kernel_names_[b][k] =
            t_.strings.intern(std::string(brick_name(b)) + "_kernel" + std::to_string(k));
  }

  // Rank `rank` of an MPI job of `world_size`, one communicator.
  void rank_header() {
    t_.process.rank = c_.rank;
    t_.process.world_size = c_.world_size;
    t_.process.launcher = "open-mpi";
    t_.process.job = "generated";
    t_.process.pid = 1 + c_.rank;
    t_.process.clock_sync.reference_rank = 0;
    t_.communicators.push_back({0, "MPI_COMM_WORLD", 0x5eed, static_cast<int32_t>(c_.world_size),
                                static_cast<int32_t>(c_.rank), 0});
  }

  void add_layer(uint64_t l) {
    Node layer;
    layer.kind = NodeKind::kLayer;
    layer.layer_index = static_cast<int32_t>(l);
    layer.name = t_.strings.intern("Layer " + std::to_string(l));
    layer.thread = tid_;
    layer.start_ns = cpu_;
    const uint32_t layer_id = t_.add_node(layer);
    add_h2d(layer_id, l);
    for (uint32_t b = 0; b < c_.bricks_per_layer; ++b) add_brick(layer_id, b);
    add_stream_sync(layer_id);
    if (c_.world_size > 0) add_allreduce(layer_id, l);
    t_.nodes[layer_id].end_ns = cpu_;
  }

  // A launch: the API call takes CPU time, the work starts after it and
  // after the work before it on its stream.
  uint32_t gpu_op(NodeKind kind, StringId name, uint32_t parent, uint32_t stream, int64_t dur,
                  GpuDetail d) {
    const int s = stream == main_stream_ ? 0 : 1;
    const int64_t api = cpu_;
    cpu_ += rng_.range(2000, 4000);  // the API call
    Node n;
    n.kind = kind;
    n.name = name;
    n.parent = parent;
    n.thread = tid_;
    n.start_ns = std::max(api + 3000, gpu_[s]);
    n.end_ns = n.start_ns + dur;
    gpu_[s] = n.end_ns;
    d.device = 0;
    d.stream = stream;
    d.correlation = correlation_++;
    d.api_start_ns = api;
    d.api_end_ns = cpu_;
    const uint32_t id = t_.add_gpu_node(n, d);
    t_.add_edge(parent, id, EdgeType::kLaunches);
    return id;
  }

  // 1 MiB from pinned memory, over 64 host and device ranges.
  void add_h2d(uint32_t layer_id, uint64_t l) {
    GpuDetail h2d;
    h2d.bytes = 1 << 20;
    h2d.direction = Direction::kH2D;
    h2d.src_kind = MemoryKind::kPinned;
    h2d.dst_kind = MemoryKind::kDevice;
    h2d.src_addr = 0x7f0000000000ull + (l % 64) * (1 << 20);
    h2d.dst_addr = 0x500000000ull + (l % 64) * (1 << 20);
    gpu_op(NodeKind::kTransfer, copy_, layer_id, main_stream_, rng_.range(40'000, 50'000), h2d);
  }

  void add_brick(uint32_t layer_id, uint32_t b) {
    const int brick_id = kLayerBricks[b % std::size(kLayerBricks)];
    const bool side = brick_id == 4;  // AttentionScore runs on the side stream
    cpu_ += rng_.range(500, 1500);
    Node brick;
    brick.kind = NodeKind::kBrick;
    brick.brick_id = static_cast<int16_t>(brick_id);
    brick.category = brick_category(brick_id);
    brick.name = t_.strings.intern(brick_name(brick_id));
    brick.parent = layer_id;
    brick.thread = tid_;
    brick.start_ns = cpu_;
    brick.elements = 4096;
    brick.flops = 2.0 * 4096 * 4096;
    brick.bytes_moved = 4096.0 * 4096 * 0.5625;
    const uint32_t brick_node = t_.add_node(brick);
    t_.add_edge(layer_id, brick_node, EdgeType::kContains);
    if (side) add_event_pair(brick_node);
    add_kernels(brick_node, brick_id, side ? side_stream_ : main_stream_);
    cpu_ += rng_.range(500, 1500);
    t_.nodes[brick_node].end_ns = cpu_;
  }

  // The side stream waits for the main stream: an event recorded on one,
  // waited for on the other.
  void add_event_pair(uint32_t brick_node) {
    GpuDetail marker;
    marker.sync = SyncKind::kEvent;
    marker.event = event_;
    gpu_op(NodeKind::kSync, record_, brick_node, main_stream_, 0, marker);
    marker.sync = SyncKind::kStreamWait;
    gpu_op(NodeKind::kSync, wait_, brick_node, side_stream_, 0, marker);
    ++event_;
  }

  void add_kernels(uint32_t brick_node, int brick_id, uint32_t stream) {
    for (uint32_t k = 0; k < c_.kernels_per_brick; ++k) {
      GpuDetail d;
      d.grid[0] = 128;
      d.grid[1] = d.grid[2] = 1;
      d.block[0] = 256;
      d.block[1] = d.block[2] = 1;
      d.smem = 4096;
      d.registers = 64;
      d.ptx_hash = 0xABCD0000ull + static_cast<uint64_t>(brick_id);
      gpu_op(NodeKind::kKernel, kernel_names_[brick_id][k % 4], brick_node, stream,
             rng_.range(5'000, 60'000), d);
    }
  }

  // Host synchronise on the main stream closes the layer.
  void add_stream_sync(uint32_t layer_id) {
    cpu_ += rng_.range(200, 800);
    Node s;
    s.kind = NodeKind::kSync;
    s.name = sync_;
    s.parent = layer_id;
    s.thread = tid_;
    s.start_ns = cpu_;
    s.end_ns = std::max(cpu_ + 1000, gpu_[0] + 2000);
    GpuDetail sd;
    sd.stream = main_stream_;
    sd.sync = SyncKind::kStream;
    sd.api_start_ns = s.start_ns;
    sd.api_end_ns = s.end_ns;
    t_.add_edge(layer_id, t_.add_gpu_node(s, sd), EdgeType::kContains);
    cpu_ = s.end_ns + rng_.range(1000, 3000);
  }

  // Numbered by layer, so the ranks' calls match.
  void add_allreduce(uint32_t layer_id, uint64_t l) {
    Node call;
    call.kind = NodeKind::kScope;
    call.category = Category::kCommunication;
    call.name = allreduce_;
    call.parent = layer_id;
    call.thread = tid_;
    call.start_ns = cpu_;
    call.end_ns = cpu_ + rng_.range(5000, 40000);
    call.elements = 4096;
    const uint32_t id = t_.add_node(call);
    t_.add_edge(layer_id, id, EdgeType::kContains);
    t_.comm_calls.push_back({id, CommOp::kAllreduce, 0, -1, -1, 16384, 0, l + 1});
    cpu_ = call.end_ns + rng_.range(200, 800);
  }

  const GeneratorConfig& c_;
  TraceRng rng_;
  Trace t_;
  StringId kernel_names_[kBrickCount][4];
  StringId copy_ = 0, record_ = 0, wait_ = 0, sync_ = 0, allreduce_ = 0;
  uint64_t correlation_ = 1, event_ = 1;
  // The thread being generated: its id, streams, CPU clock, and when each
  // of its two streams is free.
  uint32_t tid_ = 0, main_stream_ = 0, side_stream_ = 0;
  int64_t cpu_ = 0;
  int64_t gpu_[2] = {0, 0};
};

}  // namespace

Trace generate_trace(const GeneratorConfig& c) { return Generator(c).run(); }

}  // namespace brickprof
