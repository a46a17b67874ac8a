// CUPTI activity translation without a GPU: records of the real CUDA 13 types
// (as CUPTI would hand them over), through translate() into staged records,
// and the copy addresses and graph-node origins the dump attributes with.
// Attribution itself is tested in tests/agent/io/gpu_attribution_test.cpp.
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

// BRICKPROF_CAPTURE: with no window open, records of calls after the last
// recorded one are not staged, and are counted (the dump leaves out, and
// counts, the staged ones whose launch was not recorded).
TEST(Translate, WorkLaunchedAfterTheLastWindowIsCountedNotStaged) {
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
  EXPECT_EQ(ctx.staged[0].detail.correlation, 9u);
  EXPECT_EQ(ctx.staged[1].detail.correlation, 5u);
}

TEST(Translate, KernelRecordBecomesAStagedKernel) {
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
  const StagedRecord& r = ctx.staged[0];
  EXPECT_EQ(r.node.kind, NodeKind::kKernel);
  EXPECT_EQ(ctx.staged.name(r), "rmsnorm_kernel(float*, int)");
  EXPECT_EQ(r.node.parent, kNoNode);  // the dump attributes it
  EXPECT_EQ(r.node.start_ns, 1000);
  EXPECT_EQ(r.node.duration_ns(), 50000);
  const GpuDetail& d = r.detail;
  EXPECT_EQ(d.grid[0], 16u);
  EXPECT_EQ(d.grid[1], 2u);
  EXPECT_EQ(d.block[0], 256u);
  EXPECT_EQ(d.smem, 1536u);
  EXPECT_EQ(d.registers, 32u);
  EXPECT_EQ(d.context, 1u);
  EXPECT_EQ(d.stream, 7u);
  EXPECT_EQ(d.correlation, 42u);
  EXPECT_EQ(d.ptx_hash, 0x1234u);
  EXPECT_EQ(d.graph_node, 0u);
  EXPECT_EQ(d.python_stack, kNoPythonStack);
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

// A kernel replayed from a graph keeps its own (instantiated clone's) node
// id; the dump follows clones back to the node that was captured, through
// the map the graph callbacks kept (cupti/callbacks.cpp), across
// instantiations of instantiations, and stops on a cycle.
TEST(Translate, ReplayedKernelKeepsItsNodeAndIsFollowedBackToTheCapture) {
  TranslationContext ctx;
  KernelRecord k = kernel(900, 100, 200, "add_one");
  k.graphNodeId = 0xC10E;  // the instantiated clone
  k.graphId = 3;
  ASSERT_TRUE(translate(as_record(&k), ctx));
  EXPECT_EQ(ctx.staged[0].detail.graph_node, 0xC10Eu);
  EXPECT_EQ(ctx.staged[0].detail.graph_id, 0u);       // a kernel of its own, not a whole replay
  EXPECT_EQ(ctx.staged[0].detail.correlation, 900u);  // the graph launch's

  std::unordered_map<uint64_t, uint64_t> origin{
      {0xC10E, 0xC10D}, {0xC10D, 0x0816}, {0xAAAA, 0xBBBB}, {0xBBBB, 0xAAAA}};
  AttributionInputs in;
  EXPECT_EQ(original_graph_node(in, 0xC10E), 0xC10Eu);  // no map: itself
  in.graph_node_origin = &origin;
  EXPECT_EQ(original_graph_node(in, 0xC10E), 0x0816u);
  EXPECT_EQ(original_graph_node(in, 0x0816), 0x0816u);
  const uint64_t round = original_graph_node(in, 0xAAAA);
  EXPECT_TRUE(round == 0xAAAA || round == 0xBBBB);
}

// BRICKPROF_CUDA_GRAPH_TRACE=graph: a whole replay is one kernel node,
// carrying the graph launch's correlation; one that began with host work
// names its device in the end fields.
TEST(Translate, WholeGraphReplayIsOneKernelOfTheLaunch) {
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
  ASSERT_EQ(ctx.staged.size(), 1u);
  const StagedRecord& r = ctx.staged[0];
  EXPECT_EQ(r.node.kind, NodeKind::kKernel);
  EXPECT_EQ(ctx.staged.name(r), "CUDA graph 4");
  EXPECT_EQ(r.node.duration_ns(), 90000);
  EXPECT_EQ(r.detail.device, 1u);
  EXPECT_EQ(r.detail.context, 5u);
  EXPECT_EQ(r.detail.stream, 13u);
  EXPECT_EQ(r.detail.correlation, 77u);  // the cuGraphLaunch's: its scope is the parent
  EXPECT_EQ(r.detail.graph_node, 0u);
  EXPECT_EQ(r.detail.graph_id, 4u);  // what marks a whole replay
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

  ASSERT_EQ(ctx.staged.size(), 4u);
  const StagedRecord& h2d = ctx.staged[0];
  EXPECT_EQ(h2d.node.kind, NodeKind::kTransfer);
  EXPECT_EQ(ctx.staged.name(h2d), "memcpy HtoD");
  EXPECT_EQ(h2d.detail.direction, Direction::kH2D);
  EXPECT_EQ(h2d.detail.src_kind, MemoryKind::kPageable);
  EXPECT_EQ(h2d.detail.dst_kind, MemoryKind::kDevice);
  EXPECT_EQ(h2d.detail.bytes, 4096u);
  EXPECT_EQ(h2d.detail.stream, 13u);
  EXPECT_EQ(h2d.detail.src_addr, 0u);  // records carry no addresses: the dump adds them
  EXPECT_EQ(ctx.staged[1].detail.direction, Direction::kD2H);
  EXPECT_EQ(ctx.staged.name(ctx.staged[1]), "memcpy DtoH");
  EXPECT_EQ(ctx.staged[1].detail.dst_kind, MemoryKind::kPinned);
  EXPECT_EQ(ctx.staged[2].detail.src_kind, MemoryKind::kManaged);
  EXPECT_EQ(ctx.staged[2].detail.direction, Direction::kD2D);
  EXPECT_EQ(ctx.staged[3].detail.direction, Direction::kPeer);  // two devices, whatever copyKind
  EXPECT_EQ(ctx.staged.name(ctx.staged[3]), "memcpy PtoP");
  EXPECT_EQ(ctx.staged[3].detail.bytes, 1u << 20);
}

// The addresses the copy callbacks stored (by correlation), which the dump
// adds to each copy and memset: a replayed copy carries the graph launch's
// correlation, so its addresses are those of the call that captured its
// node (the clone followed back first).
TEST(Translate, CopyAddressesByCallOrByTheCallThatCapturedTheNode) {
  std::unordered_map<uint64_t, TransferAddresses> addresses{
      {5, {0x7f0000001000, 0x700000000, 4096}}, {31, {0x1000, 0x2000, 64}}};
  std::unordered_map<uint64_t, uint64_t> origin{{0xC10E, 0x0816}};
  std::unordered_map<uint64_t, uint32_t> node_correlation{{0x0816, 31}};
  AttributionInputs in;
  GpuDetail eager;
  eager.correlation = 5;
  EXPECT_EQ(addresses_of(in, eager), nullptr);  // no callbacks' map: none
  in.addresses = &addresses;
  const TransferAddresses* a = addresses_of(in, eager);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->src, 0x7f0000001000u);
  EXPECT_EQ(a->dst, 0x700000000u);

  GpuDetail replayed;
  replayed.correlation = 900;  // the cuGraphLaunch, which stored none
  replayed.graph_node = 0xC10E;
  EXPECT_EQ(addresses_of(in, replayed), nullptr);  // no node map yet
  in.node_correlation = &node_correlation;
  in.graph_node_origin = &origin;
  a = addresses_of(in, replayed);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->src, 0x1000u);
  EXPECT_EQ(a->dst, 0x2000u);

  GpuDetail unknown;
  unknown.correlation = 6;
  EXPECT_EQ(addresses_of(in, unknown), nullptr);
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

// MEMORY2 and MEMORY_POOL records are kept for the exit write
// (io/memory_activity.h): a local pool's size from either, an imported
// pool's or a synchronous call's not; a record with no time is counted.
TEST(Translate, MemoryAndPoolRecordsAreKeptWithThePoolsSize) {
  TranslationContext ctx;
  CUpti_ActivityMemory4 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.correlationId = 12;
  m.address = 0x7f00;
  m.bytes = 3 << 20;
  m.timestamp = 500;
  m.deviceId = 1;
  m.isAsync = 1;
  m.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  m.memoryPoolConfig.address = 0x7d00;
  m.memoryPoolConfig.pool.size = 4 << 20;
  EXPECT_TRUE(translate(as_record(&m), ctx));
  m.isAsync = 0;  // cuMemAlloc: no pool
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  EXPECT_TRUE(translate(as_record(&m), ctx));
  CUpti_ActivityMemoryPool3 p;
  std::memset(&p, 0, sizeof p);
  p.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  p.memoryPoolOperationType = CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
  p.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_IMPORTED;
  p.address = 0x7d00;
  p.size = 2 << 20;
  p.timestamp = 600;
  EXPECT_TRUE(translate(as_record(&p), ctx));
  p.timestamp = 0;
  EXPECT_FALSE(translate(as_record(&p), ctx));
  EXPECT_EQ(ctx.zero_timestamp_records, 1u);
  ASSERT_EQ(ctx.memory.size(), 3u);
  const MemoryActivity& a = ctx.memory[0];
  EXPECT_EQ(a.kind, MemoryActivity::Kind::kAlloc);
  EXPECT_EQ(a.correlation, 12u);
  EXPECT_EQ(a.device, 1u);
  EXPECT_EQ(a.time_ns, 500);
  EXPECT_EQ(a.address, 0x7f00u);
  EXPECT_EQ(a.bytes, 3u << 20);
  EXPECT_TRUE(a.pool_size_known);
  EXPECT_EQ(a.pool, 0x7d00u);
  EXPECT_EQ(a.pool_size, 4u << 20);
  EXPECT_EQ(ctx.memory[1].kind, MemoryActivity::Kind::kRelease);
  EXPECT_FALSE(ctx.memory[1].pool_size_known);
  EXPECT_EQ(ctx.memory[2].kind, MemoryActivity::Kind::kPoolTrimmed);
  EXPECT_FALSE(ctx.memory[2].pool_size_known) << "an imported pool's size is another process's";
  EXPECT_EQ(ctx.staged.size(), 0u) << "no node";
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
