// Traces and file helpers shared by the trace and analysis tests.
#include "test_traces.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "trace/json/trace_json.h"

namespace brickprof::test {

std::string data_path(const std::string& name) {
  return std::string(BRICKPROF_TEST_DATA) + "/" + name;
}

Trace small_trace() { return read_trace_file(data_path("tree_small.json")); }

Trace full_trace() {
  Trace t;
  t.process.pid = 77;
  t.process.ppid = 1;
  t.process.program = "prog \"x\"";
  t.process.cmdline = "prog --flag";
  t.process.host = "host-1";
  t.process.rank = 3;
  t.process.start_ns = 1000;
  t.process.end_ns = 9000000;
  t.process.launcher = "slurm";
  t.process.job = "41.0";
  t.process.local_rank = 1;
  t.process.world_size = 4;
  t.process.clock_sync = {0, {{2000, -150, 900}, {8000000, -90, 800}}};
  t.diagnostics.cupti = "unavailable: no libcuda";
  t.diagnostics.nvtx = "ok";
  t.diagnostics.dropped_events = 1;
  t.diagnostics.dropped_names = 2;
  t.diagnostics.ignored_api_calls = 3;
  t.diagnostics.dropped_activity_records = 2;
  t.diagnostics.zero_timestamp_records = 3;
  t.diagnostics.unbalanced_pops = 4;
  t.diagnostics.open_scopes_at_exit = 5;
  t.diagnostics.capture = "scope 'step': 2 windows, 30ns recorded";
  t.diagnostics.capture_windows = {{100, 110}, {200, 220}};
  t.diagnostics.scopes_cut_by_capture = 6;
  t.diagnostics.records_outside_capture = 7;
  t.diagnostics.warnings = {"first warning", "second\nwith newline"};
  t.devices.push_back(
      {0, "GPU A", 132, 1980.5, 2619, 5120, 989000.25, 3350.5, "device attributes"});
  t.devices.push_back({1, "GPU B", 8, 1000, 1000, 128, 10, 20, "default"});
  t.threads = {{11, "main"}, {12, "worker"}};

  Node layer;
  layer.kind = NodeKind::kLayer;
  layer.layer_index = 2;
  layer.name = t.strings.intern("Layer 2");
  layer.thread = 11;
  layer.start_ns = 1000;
  layer.end_ns = 900000;
  uint32_t l = t.add_node(layer);

  Node brick;
  brick.kind = NodeKind::kBrick;
  brick.brick_id = 8;
  brick.category = Category::kFfn;
  brick.name = t.strings.intern("GateProjection");
  brick.parent = l;
  brick.thread = 11;
  brick.start_ns = 2000;
  brick.end_ns = 500000;
  brick.elements = 4096;
  brick.flops = 1.5e9;
  brick.bytes_moved = 2.25e6;
  uint32_t b = t.add_node(brick);

  Node scope;
  scope.kind = NodeKind::kScope;
  scope.name = t.strings.intern("my scope");
  scope.parent = b;
  scope.thread = 12;
  scope.start_ns = 3000;
  scope.end_ns = 4000;
  uint32_t s = t.add_node(scope);

  Node k;
  k.kind = NodeKind::kKernel;
  k.name = t.strings.intern("void gemv<float, 4>(float const*, float*)");
  k.parent = b;
  k.thread = 11;
  k.start_ns = 10000;
  k.end_ns = 20000;
  GpuDetail kd;
  kd.device = 1;
  kd.context = 5;
  kd.stream = 14;
  kd.correlation = 99;
  kd.api_start_ns = 5000;
  kd.api_end_ns = 6000;
  kd.grid[0] = 64;
  kd.grid[1] = 2;
  kd.grid[2] = 1;
  kd.block[0] = 128;
  kd.block[1] = 1;
  kd.block[2] = 1;
  kd.smem = 8192;
  kd.registers = 40;
  kd.ptx_hash = 0xfedcba9876543210ull;
  kd.graph_node = 1234567;
  kd.graph_id = 12;
  kd.python_stack = 1;
  uint32_t kid = t.add_gpu_node(k, kd);

  Node x;
  x.kind = NodeKind::kTransfer;
  x.name = t.strings.intern("cuMemcpyHtoDAsync");
  x.parent = l;
  x.thread = 11;
  x.start_ns = 30000;
  x.end_ns = 40000;
  GpuDetail xd;
  xd.stream = 14;
  xd.correlation = 100;
  xd.bytes = 1 << 20;
  xd.direction = Direction::kH2D;
  xd.src_kind = MemoryKind::kPinned;
  xd.dst_kind = MemoryKind::kDevice;
  xd.src_addr = 0x7f0000001000ull;
  xd.dst_addr = 0x500000000ull;
  uint32_t xid = t.add_gpu_node(x, xd);

  Node m;
  m.kind = NodeKind::kMemset;
  m.name = t.strings.intern("cuMemsetD8");
  m.parent = kNoNode;
  m.thread = 12;
  m.start_ns = 50000;
  m.end_ns = 50500;
  GpuDetail md;
  md.bytes = 256;
  md.direction = Direction::kUnknown;
  md.dst_kind = MemoryKind::kDevice;
  md.dst_addr = 0x600000000ull;
  t.add_gpu_node(m, md);

  Node y;
  y.kind = NodeKind::kSync;
  y.name = t.strings.intern("cuEventSynchronize");
  y.parent = l;
  y.thread = 11;
  y.start_ns = 60000;
  y.end_ns = 61000;
  GpuDetail yd;
  yd.sync = SyncKind::kEvent;
  yd.event = 0xabc;
  yd.correlation = 101;
  uint32_t yid = t.add_gpu_node(y, yd);

  t.add_edge(l, b, EdgeType::kContains);
  t.add_edge(b, s, EdgeType::kContains);
  t.add_edge(b, kid, EdgeType::kLaunches);
  t.add_edge(kid, xid, EdgeType::kSequence);
  t.add_edge(xid, yid, EdgeType::kDependsOn);
  t.add_edge(l, xid, EdgeType::kTransfer);

  t.ptx.push_back({0xfedcba9876543210ull, "ptx", 12345, {"gemv", "gemv2"}, ".version 8.0\n"});
  t.ptx.push_back({0x1ull, "cubin", 99, {}, ""});
  t.python_frames = {{"/src/model \"v2\".py", 212, "Model.forward"}, {"run.py", 30, "<module>"}};
  t.python_stacks = {{1}, {0, 1}};
  return t;
}

Trace two_thread_trace(int bricks) {
  Trace t;
  t.threads = {{1, "main"}, {2, ""}};
  for (uint32_t tid : {1u, 2u}) {
    Node layer;
    layer.kind = NodeKind::kLayer;
    layer.layer_index = 0;
    layer.thread = tid;  // unnamed: shown as "Layer 0"
    layer.start_ns = 0;
    layer.end_ns = 1000000;
    uint32_t l = t.add_node(layer);
    for (int i = 0; i < bricks; ++i) {
      Node b;
      b.kind = NodeKind::kBrick;
      b.name = t.strings.intern("B" + std::to_string(i));
      b.parent = l;
      b.thread = tid;
      b.start_ns = 1000 * i;
      b.end_ns = 1000 * i + 500;
      b.elements = 1;
      t.add_node(b);
    }
  }
  return t;
}

}  // namespace brickprof::test
