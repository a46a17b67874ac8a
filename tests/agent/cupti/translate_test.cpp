// CUPTI activity translation without a GPU: records of the real CUDA 13 types
// (as CUPTI would hand them over), through translate() and attribute().
#include <gtest/gtest.h>

#include <cstring>

#include "agent/cupti/translate.h"

namespace brickprof::agent {
namespace {

KernelRecord kernel(uint32_t correlation, uint64_t start, uint64_t end, const char* name) {
  KernelRecord k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = 16;
  k.gridY = 2;
  k.gridZ = 1;
  k.blockX = 256;
  k.blockY = 1;
  k.blockZ = 1;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 512;
  k.registersPerThread = 32;
  k.correlationId = correlation;
  k.name = name;
  return k;
}

const CUpti_Activity* as_record(const void* p) { return static_cast<const CUpti_Activity*>(p); }

// Layer 0 > RmsNorm (brick) as the replay would have produced them.
struct Scopes {
  Trace trace;
  uint32_t layer, brick;
  LaunchIndex launches;
  Scopes() {
    Node l;
    l.kind = NodeKind::kLayer;
    l.name = trace.strings.intern("Layer 0");
    layer = trace.add_node(l);
    Node b;
    b.kind = NodeKind::kBrick;
    b.brick_id = 0;
    b.name = trace.strings.intern("RmsNorm");
    b.parent = layer;
    brick = trace.add_node(b);
  }
};

// BRICKPROF_CAPTURE: with no window open, records of calls after the last
// recorded one are not staged; at attribution, records whose launch was not
// recorded are left out. Both are counted.
TEST(Translate, WorkLaunchedOutsideCaptureWindowsIsCountedNotKept) {
  TranslationContext ctx;
  ctx.stage_correlations_up_to = 10;
  KernelRecord inside = kernel(9, 1000, 2000, "_Z1kv");
  KernelRecord before = kernel(5, 1000, 2000, "_Z1kv");
  KernelRecord after = kernel(11, 3000, 4000, "_Z1kv");
  EXPECT_TRUE(translate(as_record(&inside), ctx));
  EXPECT_TRUE(translate(as_record(&before), ctx));
  EXPECT_FALSE(translate(as_record(&after), ctx));
  EXPECT_EQ(ctx.outside_capture, 1u);
  ASSERT_EQ(ctx.staged.size(), 2u);

  Scopes s;
  s.launches.by_correlation[9] = {s.brick, 777, 900, 950};
  AttributionInputs in;
  in.launches = &s.launches;
  in.recorded_launches_only = true;
  Attribution a = attribute(ctx.staged, in, s.trace);
  EXPECT_EQ(a.outside_capture, 1u);  // correlation 5: launched before the window
  EXPECT_EQ(a.orphans, 0u);
  EXPECT_EQ(s.trace.nodes.size(), 3u);  // layer, brick, the one kernel
}

TEST(Translate, KernelBecomesChildOfLaunchingBrick) {
  PtxRegistry registry;
  ModuleInfo mod;
  mod.hash = 0x1234;
  mod.is_ptx = true;
  mod.kernels = {"_Z14rmsnorm_kernelPfi"};
  registry.add_module(mod);

  TranslationContext ctx;
  ctx.registry = &registry;
  KernelRecord k = kernel(42, 1000, 51000, "_Z14rmsnorm_kernelPfi");
  ASSERT_TRUE(translate(as_record(&k), ctx));
  ASSERT_EQ(ctx.staged.size(), 1u);

  Scopes s;
  s.launches.by_correlation[42] = {s.brick, 777, 900, 950};
  AttributionInputs in;
  in.launches = &s.launches;
  EXPECT_EQ(attribute(ctx.staged, in, s.trace).orphans, 0u);
  ASSERT_EQ(s.trace.nodes.size(), 3u);
  const Node& n = s.trace.nodes[2];
  EXPECT_EQ(n.kind, NodeKind::kKernel);
  EXPECT_EQ(s.trace.name(n), "rmsnorm_kernel(float*, int)");
  EXPECT_EQ(n.parent, s.brick);
  EXPECT_EQ(n.thread, 777u);
  EXPECT_EQ(n.start_ns, 1000);
  EXPECT_EQ(n.duration_ns(), 50000);
  const GpuDetail* d = s.trace.detail(n);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->grid[0], 16u);
  EXPECT_EQ(d->grid[1], 2u);
  EXPECT_EQ(d->block[0], 256u);
  EXPECT_EQ(d->smem, 1536u);
  EXPECT_EQ(d->registers, 32u);
  EXPECT_EQ(d->stream, 7u);
  EXPECT_EQ(d->correlation, 42u);
  EXPECT_EQ(d->ptx_hash, 0x1234u);
  EXPECT_EQ(d->api_start_ns, 900);
  EXPECT_EQ(d->api_end_ns, 950);
  ASSERT_EQ(s.trace.edges.size(), 1u);
  EXPECT_EQ(s.trace.edges[0].src, s.brick);
  EXPECT_EQ(s.trace.edges[0].dst, 2u);
  EXPECT_EQ(s.trace.edges[0].type, EdgeType::kLaunches);
}

TEST(Translate, NamesAreDemangledOncePerFunction) {
  TranslationContext ctx;
  const char* name = "_ZN4demo5scaleIfEEvPT_S1_i";
  for (uint32_t i = 0; i < 3; ++i) {
    KernelRecord k = kernel(i + 1, 10 + i, 20 + i, name);
    ASSERT_TRUE(translate(as_record(&k), ctx));
  }
  EXPECT_EQ(ctx.names.size(), 1u);
  EXPECT_EQ(ctx.staged.name(ctx.staged[2]), "void demo::scale<float>(float*, float, int)");
}

TEST(Translate, GraphReplayGoesToCaptureScope) {
  TranslationContext ctx;
  KernelRecord k = kernel(900, 100, 200, "add_one");
  k.graphNodeId = 0xC10E;  // the instantiated clone
  k.graphId = 3;
  ASSERT_TRUE(translate(as_record(&k), ctx));
  Scopes s;
  s.launches.by_correlation[900] = {s.layer, 1, 50, 60};  // cudaGraphLaunch under the layer
  s.launches.scope_of_graph_node[0x0816] = s.brick;      // captured under the brick
  std::unordered_map<uint64_t, uint64_t> origin{{0xC10E, 0x0816}};
  AttributionInputs in;
  in.launches = &s.launches;
  in.graph_node_origin = &origin;
  attribute(ctx.staged, in, s.trace);
  EXPECT_EQ(s.trace.nodes.back().parent, s.brick);
  EXPECT_EQ(s.trace.detail(s.trace.nodes.back())->graph_node, 0xC10Eu);
}

// BRICKPROF_CUDA_GRAPH_TRACE=graph: a whole replay is one kernel node under
// the scope around the graph launch; one that began with host work names
// its device in the end fields.
TEST(Translate, WholeGraphReplayGoesToTheLaunchingScope) {
  TranslationContext ctx;
  CUpti_ActivityGraphTrace2 g;
  std::memset(&g, 0, sizeof g);
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.correlationId = 77;
  g.start = 1000;
  g.end = 91000;
  g.deviceId = 0x7fffffff;
  g.contextId = 0x7fffffff;
  g.endDeviceId = 1;
  g.endContextId = 5;
  g.streamId = 13;
  g.graphId = 4;
  ASSERT_TRUE(translate(as_record(&g), ctx));
  Scopes s;
  s.launches.by_correlation[77] = {s.layer, 9, 500, 900};  // cuGraphLaunch under the layer
  AttributionInputs in;
  in.launches = &s.launches;
  EXPECT_EQ(attribute(ctx.staged, in, s.trace).orphans, 0u);
  const Node& n = s.trace.nodes.back();
  EXPECT_EQ(n.kind, NodeKind::kKernel);
  EXPECT_EQ(s.trace.name(n), "CUDA graph 4");
  EXPECT_EQ(n.parent, s.layer);
  EXPECT_EQ(n.duration_ns(), 90000);
  const GpuDetail* d = s.trace.detail(n);
  EXPECT_EQ(d->device, 1u);
  EXPECT_EQ(d->context, 5u);
  EXPECT_EQ(d->stream, 13u);
  EXPECT_EQ(d->graph_node, 0u);
  EXPECT_EQ(d->graph_id, 4u);  // what marks a whole replay
  EXPECT_EQ(d->api_start_ns, 500);
}

TEST(Translate, MemcpyDirectionKindsAndAddresses) {
  TranslationContext ctx;
  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 4096;
  m.start = 500;
  m.end = 900;
  m.streamId = 13;
  m.correlationId = 5;
  ASSERT_TRUE(translate(as_record(&m), ctx));
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.correlationId = 6;
  ASSERT_TRUE(translate(as_record(&m), ctx));
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  m.correlationId = 7;
  ASSERT_TRUE(translate(as_record(&m), ctx));

  CUpti_ActivityMemcpyPtoP4 p;
  std::memset(&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.bytes = 1 << 20;
  p.start = 1000;
  p.end = 3000;
  p.correlationId = 8;
  ASSERT_TRUE(translate(as_record(&p), ctx));

  Scopes s;
  s.launches.by_correlation[5] = {s.brick, 1, 400, 450};
  std::unordered_map<uint64_t, TransferAddresses> addrs{{5, {0x7f0000001000, 0x700000000, 4096}}};
  AttributionInputs in;
  in.launches = &s.launches;
  in.addresses = &addrs;
  EXPECT_EQ(attribute(ctx.staged, in, s.trace).orphans, 3u);  // 6, 7, 8 had no launch point
  const GpuDetail* h2d = s.trace.detail(s.trace.nodes[2]);
  EXPECT_EQ(s.trace.nodes[2].kind, NodeKind::kTransfer);
  EXPECT_EQ(s.trace.name(s.trace.nodes[2]), "memcpy HtoD");
  EXPECT_EQ(s.trace.nodes[2].parent, s.brick);
  EXPECT_EQ(h2d->direction, Direction::kH2D);
  EXPECT_EQ(h2d->src_kind, MemoryKind::kPageable);
  EXPECT_EQ(h2d->dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(h2d->bytes, 4096u);
  EXPECT_EQ(h2d->src_addr, 0x7f0000001000u);
  EXPECT_EQ(h2d->dst_addr, 0x700000000u);
  EXPECT_EQ(h2d->stream, 13u);
  const GpuDetail* d2h = s.trace.detail(s.trace.nodes[3]);
  EXPECT_EQ(d2h->direction, Direction::kD2H);
  EXPECT_EQ(d2h->dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(s.trace.detail(s.trace.nodes[4])->src_kind, MemoryKind::kManaged);
  EXPECT_EQ(s.trace.detail(s.trace.nodes[5])->direction, Direction::kPeer);
  EXPECT_EQ(s.trace.nodes[5].parent, kNoNode);
}

TEST(Translate, MemsetAndSync) {
  TranslationContext ctx;
  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.bytes = 256;
  m.start = 10;
  m.end = 20;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.correlationId = 1;
  ASSERT_TRUE(translate(as_record(&m), ctx));
  CUpti_ActivitySynchronization2 s;
  std::memset(&s, 0, sizeof s);
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = 30;
  s.end = 90;
  s.streamId = 7;
  s.cudaEventId = UINT32_MAX;
  s.correlationId = 2;
  ASSERT_TRUE(translate(as_record(&s), ctx));
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.streamId = UINT32_MAX;
  ASSERT_TRUE(translate(as_record(&s), ctx));
  ASSERT_EQ(ctx.staged.size(), 3u);
  EXPECT_EQ(ctx.staged[0].node.kind, NodeKind::kMemset);
  EXPECT_EQ(ctx.staged[0].detail.bytes, 256u);
  EXPECT_EQ(ctx.staged[1].node.kind, NodeKind::kSync);
  EXPECT_EQ(ctx.staged[1].detail.sync, SyncKind::kStream);
  EXPECT_EQ(ctx.staged[1].detail.stream, 7u);
  EXPECT_EQ(ctx.staged[1].detail.event, 0u);
  EXPECT_EQ(ctx.staged[2].detail.sync, SyncKind::kContext);
  EXPECT_EQ(ctx.staged[2].detail.stream, 0u);
}

TEST(Translate, ZeroTimestampsAreCountedNotKept) {
  TranslationContext ctx;
  KernelRecord k = kernel(1, 0, 100, "k");
  EXPECT_FALSE(translate(as_record(&k), ctx));
  k = kernel(2, 100, 0, "k");
  EXPECT_FALSE(translate(as_record(&k), ctx));
  k = kernel(3, 200, 100, "k");  // ends before it starts
  EXPECT_FALSE(translate(as_record(&k), ctx));
  EXPECT_EQ(ctx.zero_timestamp_records, 3u);
  EXPECT_TRUE(ctx.staged.empty());
}

TEST(Translate, CapAndUnknownKindsAreCounted) {
  TranslationContext ctx;
  ctx.max_nodes = 2;
  for (uint32_t i = 0; i < 5; ++i) {
    KernelRecord k = kernel(i, 10, 20, "k");
    translate(as_record(&k), ctx);
  }
  EXPECT_EQ(ctx.staged.size(), 2u);
  EXPECT_EQ(ctx.dropped_over_cap, 3u);
  CUpti_ActivityDevice5 dev;
  std::memset(&dev, 0, sizeof dev);
  dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  EXPECT_FALSE(translate(as_record(&dev), ctx));
  EXPECT_EQ(ctx.unhandled_records, 1u);
}

// The staged records are charged to the memory budget (BRICKPROF_BUFFER_MB)
// with the events: when it refuses, records are dropped and counted.
uint64_t g_allowance = 0;
bool take_allowance(uint64_t bytes) {
  if (bytes > g_allowance) return false;
  g_allowance -= bytes;
  return true;
}
void give_allowance(uint64_t bytes) { g_allowance += bytes; }

TEST(Translate, RecordsPastTheBudgetAreDroppedAndCounted) {
  TranslationContext ctx;
  // Room for the name and one block of records, not two.
  g_allowance = 600 * StagedRecords::kBytesPerRecord;
  ctx.staged.set_hooks({take_allowance, give_allowance});
  for (uint32_t i = 0; i < 1000; ++i) {
    KernelRecord k = kernel(i, 10, 20, "k");
    translate(as_record(&k), ctx);
  }
  EXPECT_GT(ctx.staged.size(), 0u);
  EXPECT_LT(ctx.staged.size(), 1000u);
  EXPECT_EQ(ctx.staged.size() + ctx.dropped_over_cap, 1000u);
  EXPECT_LE(ctx.staged.bytes(), 600 * StagedRecords::kBytesPerRecord);
  const uint64_t held = ctx.staged.bytes();
  EXPECT_EQ(g_allowance + held, 600 * StagedRecords::kBytesPerRecord);
}

}  // namespace
}  // namespace brickprof::agent
