// Synthetic trace generator (see trace_generator.h).
#include "tests/support/trace_generator.h"

#include <string>

#include "trace/model/bricks.h"

namespace brickprof {
namespace {

constexpr int kLayerBricks[] = {0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

}  // namespace

uint64_t events_per_layer(const GeneratorConfig& c) {
  // layer + bricks x (brick + kernels) + H2D copy + record + wait + sync
  // (+ the all-reduce of a rank)
  return 1 + static_cast<uint64_t>(c.bricks_per_layer) * (1 + c.kernels_per_brick) + 4 +
         (c.world_size > 0 ? 1 : 0);
}

Trace generate_trace(const GeneratorConfig& c) {
  Trace t;
  TraceRng rng{0x9E3779B97F4A7C15ull ^ c.seed};
  uint64_t per_layer = events_per_layer(c);
  uint64_t layers = (c.target_events + per_layer - 1) / per_layer;
  t.process.program = "generated";
  t.process.pid = 1;
  t.devices.push_back(
      Device{0, "Generated GPU", 132, 1980, 2619, 5120, 60000, 3350, "device attributes"});
  t.nodes.reserve(layers * per_layer);
  t.gpu.reserve(layers * per_layer);
  t.edges.reserve(layers * per_layer * 2);
  StringId kernel_names[kBrickCount][4];
  for (int b = 0; b < kBrickCount; ++b)
    for (int k = 0; k < 4; ++k)
      kernel_names[b][k] =
          t.strings.intern(std::string(brick_name(b)) + "_kernel" + std::to_string(k));
  StringId copy = t.strings.intern("cudaMemcpyAsync");
  StringId record = t.strings.intern("cudaEventRecord");
  StringId wait = t.strings.intern("cudaStreamWaitEvent");
  StringId sync = t.strings.intern("cudaStreamSynchronize");
  uint64_t correlation = 1, event = 1;
  const StringId allreduce = c.world_size > 0 ? t.strings.intern("MPI_Allreduce") : 0;
  if (c.world_size > 0) {
    t.process.rank = c.rank;
    t.process.world_size = c.world_size;
    t.process.launcher = "open-mpi";
    t.process.job = "generated";
    t.process.pid = 1 + c.rank;
    t.process.clock_sync.reference_rank = 0;
    t.communicators.push_back({0, "MPI_COMM_WORLD", 0x5eed, static_cast<int32_t>(c.world_size),
                               static_cast<int32_t>(c.rank), 0});
  }
  for (uint32_t th = 0; th < c.threads; ++th) {
    const uint32_t tid = 1000 + th, main_stream = 10 + 2 * th, side_stream = 11 + 2 * th;
    int64_t cpu = 1000 * th;      // CPU clock of this thread
    int64_t gpu[2] = {cpu, cpu};  // when each stream is free
    for (uint64_t l = th; l < layers; l += c.threads) {
      Node layer;
      layer.kind = NodeKind::kLayer;
      layer.layer_index = static_cast<int32_t>(l);
      layer.name = t.strings.intern("Layer " + std::to_string(l));
      layer.thread = tid;
      layer.start_ns = cpu;
      uint32_t layer_id = t.add_node(layer);
      auto gpu_op = [&](NodeKind kind, StringId name, uint32_t parent, uint32_t stream, int64_t dur,
                        GpuDetail d) {
        int s = stream == main_stream ? 0 : 1;
        int64_t api = cpu;
        cpu += rng.range(2000, 4000);  // the API call
        Node n;
        n.kind = kind;
        n.name = name;
        n.parent = parent;
        n.thread = tid;
        n.start_ns = std::max(api + 3000, gpu[s]);
        n.end_ns = n.start_ns + dur;
        gpu[s] = n.end_ns;
        d.device = 0;
        d.stream = stream;
        d.correlation = correlation++;
        d.api_start_ns = api;
        d.api_end_ns = cpu;
        uint32_t id = t.add_gpu_node(n, d);
        t.add_edge(parent, id, EdgeType::kLaunches);
        return id;
      };
      GpuDetail h2d;
      h2d.bytes = 1 << 20;
      h2d.direction = Direction::kH2D;
      h2d.src_kind = MemoryKind::kPinned;
      h2d.dst_kind = MemoryKind::kDevice;
      h2d.src_addr = 0x7f0000000000ull + (l % 64) * (1 << 20);
      h2d.dst_addr = 0x500000000ull + (l % 64) * (1 << 20);
      gpu_op(NodeKind::kTransfer, copy, layer_id, main_stream, rng.range(40'000, 50'000), h2d);
      for (uint32_t b = 0; b < c.bricks_per_layer; ++b) {
        int brick_id = kLayerBricks[b % std::size(kLayerBricks)];
        bool side = brick_id == 4;  // AttentionScore runs on the side stream
        cpu += rng.range(500, 1500);
        Node brick;
        brick.kind = NodeKind::kBrick;
        brick.brick_id = static_cast<int16_t>(brick_id);
        brick.category = brick_category(brick_id);
        brick.name = t.strings.intern(brick_name(brick_id));
        brick.parent = layer_id;
        brick.thread = tid;
        brick.start_ns = cpu;
        brick.elements = 4096;
        brick.flops = 2.0 * 4096 * 4096;
        brick.bytes_moved = 4096.0 * 4096 * 0.5625;
        uint32_t brick_node = t.add_node(brick);
        t.add_edge(layer_id, brick_node, EdgeType::kContains);
        uint32_t stream = side ? side_stream : main_stream;
        GpuDetail marker;
        if (side) {
          marker.sync = SyncKind::kEvent;
          marker.event = event;
          gpu_op(NodeKind::kSync, record, brick_node, main_stream, 0, marker);
          marker.sync = SyncKind::kStreamWait;
          gpu_op(NodeKind::kSync, wait, brick_node, side_stream, 0, marker);
          ++event;
        }
        for (uint32_t k = 0; k < c.kernels_per_brick; ++k) {
          GpuDetail d;
          d.grid[0] = 128;
          d.grid[1] = d.grid[2] = 1;
          d.block[0] = 256;
          d.block[1] = d.block[2] = 1;
          d.smem = 4096;
          d.registers = 64;
          d.ptx_hash = 0xABCD0000ull + static_cast<uint64_t>(brick_id);
          gpu_op(NodeKind::kKernel, kernel_names[brick_id][k % 4], brick_node, stream,
                 rng.range(5'000, 60'000), d);
        }
        cpu += rng.range(500, 1500);
        t.nodes[brick_node].end_ns = cpu;
      }
      // Host synchronise on the main stream closes the layer.
      cpu += rng.range(200, 800);
      Node s;
      s.kind = NodeKind::kSync;
      s.name = sync;
      s.parent = layer_id;
      s.thread = tid;
      s.start_ns = cpu;
      s.end_ns = std::max(cpu + 1000, gpu[0] + 2000);
      GpuDetail sd;
      sd.stream = main_stream;
      sd.sync = SyncKind::kStream;
      sd.api_start_ns = s.start_ns;
      sd.api_end_ns = s.end_ns;
      t.add_edge(layer_id, t.add_gpu_node(s, sd), EdgeType::kContains);
      cpu = s.end_ns + rng.range(1000, 3000);
      if (c.world_size > 0) {
        Node call;
        call.kind = NodeKind::kScope;
        call.category = Category::kCommunication;
        call.name = allreduce;
        call.parent = layer_id;
        call.thread = tid;
        call.start_ns = cpu;
        call.end_ns = cpu + rng.range(5000, 40000);
        call.elements = 4096;
        const uint32_t id = t.add_node(call);
        t.add_edge(layer_id, id, EdgeType::kContains);
        t.comm_calls.push_back({id, CommOp::kAllreduce, 0, -1, -1, 16384, 0, l + 1});
        cpu = call.end_ns + rng.range(200, 800);
      }
      t.nodes[layer_id].end_ns = cpu;
    }
  }
  return t;
}

}  // namespace brickprof
