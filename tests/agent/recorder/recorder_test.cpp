// Recorder and replay: nesting, threads, the memory cap and what it drops.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "agent/recorder/budget.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "tests/agent/support/replay_oracle.h"

namespace brickprof::agent {
namespace {

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Clock::init();
    Recorder::reset_after_fork();  // a clean slate for each test
    Recorder::set_capacity(64ull << 20);
    Recorder::set_enabled(true);
  }
  Trace replay_all(ReplayResult* result = nullptr) {
    Trace trace;
    ReplayResult r = replay(Recorder::snapshot(), Clock::fit_now(), Clock::ticks(), trace);
    if (result) *result = r;
    return trace;
  }
};

TEST_F(RecorderTest, NestsLayersBricksAndScopes) {
  uint32_t layer = Recorder::intern_site(NodeKind::kLayer, -1, "");
  uint32_t rms = Recorder::intern_site(NodeKind::kBrick, 0, "");
  uint32_t custom = Recorder::intern_site(NodeKind::kBrick, -1, "Fancy");
  ASSERT_TRUE(Recorder::push(layer, 3));
  ASSERT_TRUE(Recorder::push(rms, 4096));
  Recorder::work(100, 200);
  ASSERT_TRUE(Recorder::pop());
  ASSERT_TRUE(Recorder::push(custom, 7));
  ASSERT_TRUE(Recorder::pop());
  ASSERT_TRUE(Recorder::pop());
  ReplayResult r;
  Trace t = replay_all(&r);
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.name(t.nodes[0]), "Layer 3");
  EXPECT_EQ(t.nodes[0].layer_index, 3);
  EXPECT_EQ(t.name(t.nodes[1]), "RmsNorm");
  EXPECT_EQ(t.nodes[1].parent, 0u);
  EXPECT_EQ(t.nodes[1].category, Category::kNorm);
  EXPECT_EQ(t.nodes[1].elements, 4096u);
  EXPECT_DOUBLE_EQ(t.nodes[1].flops, 100);
  EXPECT_DOUBLE_EQ(t.nodes[1].bytes_moved, 200);
  EXPECT_EQ(t.name(t.nodes[2]), "Fancy");
  EXPECT_EQ(t.nodes[2].brick_id, -1);
  EXPECT_EQ(t.nodes[2].category, Category::kOther);
  for (const Node& n : t.nodes) EXPECT_LE(n.start_ns, n.end_ns);
  EXPECT_LE(t.nodes[0].start_ns, t.nodes[1].start_ns);
  EXPECT_GE(t.nodes[0].end_ns, t.nodes[2].end_ns);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  EXPECT_EQ(t.edges.size(), 2u);
}

TEST_F(RecorderTest, NamesMapToLayersAndBricksWithAliases) {
  uint32_t a = Recorder::intern_named("layers.5", NodeKind::kScope);
  uint32_t b = Recorder::intern_named("Rope", NodeKind::kScope);
  uint32_t c = Recorder::intern_named("my_thing", NodeKind::kScope);
  EXPECT_EQ(Recorder::site(a).kind, NodeKind::kLayer);
  EXPECT_EQ(Recorder::site(b).kind, NodeKind::kBrick);
  EXPECT_EQ(Recorder::site(b).brick_id, 3);
  EXPECT_EQ(Recorder::site(c).kind, NodeKind::kScope);
  EXPECT_EQ(Recorder::intern_named("Rope", NodeKind::kScope), b);  // interned once
}

TEST_F(RecorderTest, CountsUnbalancedPopsAndOpenScopes) {
  uint32_t s = Recorder::intern_site(NodeKind::kScope, -1, "open");
  EXPECT_TRUE(Recorder::pop());  // nothing open
  ASSERT_TRUE(Recorder::push(s, 0));
  ReplayResult r;
  Trace t = replay_all(&r);
  EXPECT_EQ(r.unbalanced_pops, 1u);
  EXPECT_EQ(r.open_scopes_at_exit, 1u);
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_GE(t.nodes[0].end_ns, t.nodes[0].start_ns);
}

TEST_F(RecorderTest, ManyThreadsKeepTheirOwnOrder) {
  uint32_t outer = Recorder::intern_site(NodeKind::kScope, -1, "outer");
  uint32_t inner = Recorder::intern_site(NodeKind::kScope, -1, "inner");
  constexpr int kThreads = 8, kIterations = 5000;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&] {
      for (int j = 0; j < kIterations; ++j) {
        Recorder::push(outer, j);
        Recorder::push(inner, j);
        Recorder::pop();
        Recorder::pop();
      }
    });
  for (auto& th : threads) th.join();
  ReplayResult r;
  Trace t = replay_all(&r);
  EXPECT_EQ(t.nodes.size(), size_t{kThreads} * kIterations * 2);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(Recorder::dropped_events(), 0u);
  for (const Node& n : t.nodes) {
    if (n.parent == kNoNode) continue;
    const Node& p = t.nodes[n.parent];
    EXPECT_EQ(p.thread, n.thread);
    EXPECT_EQ(p.elements, n.elements);  // same iteration
  }
}

TEST_F(RecorderTest, CapDropsAndCountsInsteadOfGrowing) {
  Recorder::set_capacity(64 * 1024);  // a few chunks
  uint32_t s = Recorder::intern_site(NodeKind::kScope, -1, "s");
  uint64_t recorded = 0, attempted = 0;
  for (int i = 0; i < 100000; ++i) {
    ++attempted;
    if (Recorder::push(s, 0)) {
      ++recorded;
      ++attempted;
      if (Recorder::pop()) ++recorded;
    }
  }
  EXPECT_GT(recorded, 0u);
  EXPECT_LT(recorded, attempted);
  EXPECT_EQ(Recorder::dropped_events(), attempted - recorded);
  ReplayResult r;
  Trace t = replay_all(&r);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);  // cut-off scopes are not "open at exit"
}

// Records of 2, 3 and 4 words across many chunk boundaries (a record never
// straddles one; a chunk may end with unused words) replay exactly.
TEST_F(RecorderTest, MixedRecordSizesSurviveChunkBoundaries) {
  uint32_t brick = Recorder::intern_site(NodeKind::kBrick, 0, "");
  uint32_t mark = Recorder::intern_site(NodeKind::kScope, -1, "tick");
  constexpr int kScopes = 100000;  // ~1.1 M words: every chunk size, several 2 MiB ones
  for (int i = 0; i < kScopes; ++i) {
    ASSERT_TRUE(Recorder::push(brick, static_cast<uint64_t>(i)));
    Recorder::work(1, 2);
    if (i % 3 == 0) Recorder::mark(mark);
    ASSERT_TRUE(Recorder::pop());
  }
  ReplayResult r;
  Trace t = replay_all(&r);
  ASSERT_EQ(t.nodes.size(), static_cast<size_t>(kScopes + (kScopes + 2) / 3));
  uint64_t bricks = 0, elements_sum = 0;
  double flops = 0;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kBrick) continue;
    ++bricks;
    elements_sum += n.elements;
    flops += n.flops;
  }
  EXPECT_EQ(bricks, static_cast<uint64_t>(kScopes));
  EXPECT_EQ(elements_sum, static_cast<uint64_t>(kScopes) * (kScopes - 1) / 2);
  EXPECT_DOUBLE_EQ(flops, kScopes);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  EXPECT_EQ(Recorder::dropped_events(), 0u);
}

TEST_F(RecorderTest, DisabledRecordsNothing) {
  uint32_t s = Recorder::intern_site(NodeKind::kScope, -1, "s");
  Recorder::set_enabled(false);
  EXPECT_FALSE(Recorder::push(s, 0));
  EXPECT_FALSE(Recorder::pop());
  Recorder::set_enabled(true);
  EXPECT_TRUE(replay_all().nodes.empty());
}

TEST_F(RecorderTest, CudaCallsRememberTheirScope) {
  uint32_t brick = Recorder::intern_site(NodeKind::kBrick, 2, "");
  uint32_t api = Recorder::intern_api_name("cuLaunchKernel");
  Recorder::push(brick, 1);
  uint64_t t0 = Clock::ticks();
  Recorder::cuda_api(t0, Clock::ticks(), api, 42, 0);
  Recorder::graph_node(7);
  Recorder::pop();
  Recorder::cuda_api(Clock::ticks(), Clock::ticks(), api, 43, 0);  // outside any scope
  ReplayResult r;
  Trace t = replay_all(&r);
  ASSERT_EQ(t.nodes.size(), 1u);
  ASSERT_TRUE(r.launches.by_correlation.count(42));
  EXPECT_EQ(r.launches.by_correlation[42].scope, 0u);
  EXPECT_LE(r.launches.by_correlation[42].api_start_ns, r.launches.by_correlation[42].api_end_ns);
  EXPECT_EQ(r.launches.by_correlation[43].scope, kNoNode);
  EXPECT_EQ(r.launches.scope_of_graph_node[7], 0u);
}

// The Python stack rides in the CUDA call's record beside the correlation
// id (a full 32-bit one), and comes out of the walk numbered as the trace's.
TEST_F(RecorderTest, CudaCallsCarryTheirPythonStack) {
  uint32_t api = Recorder::intern_api_name("cuLaunchKernel");
  Recorder::cuda_api(Clock::ticks(), Clock::ticks(), api, 0xfffffffeu, 5);
  Recorder::cuda_api(Clock::ticks(), Clock::ticks(), api, 7, 0);
  ReplayResult r;
  replay_all(&r);
  ASSERT_TRUE(r.launches.by_correlation.count(0xfffffffeu));
  EXPECT_EQ(r.launches.by_correlation[0xfffffffeu].python_stack, 4u);
  EXPECT_EQ(r.launches.by_correlation[7].python_stack, kNoPythonStack);
}

// A memory event keeps every field through the record's packing, and is
// attributed to the scope open when it was recorded.
TEST_F(RecorderTest, MemoryEventsRememberTheirScopeAndFields) {
  uint32_t layer = Recorder::intern_site(NodeKind::kLayer, -1, "");
  uint32_t api = Recorder::intern_api_name("cuMemAllocAsync");
  uint32_t pool = Recorder::intern_api_name("kv_cache");
  Recorder::push(layer, 3);
  MemoryRecord r;
  r.op = MemoryOp::kAlloc;
  r.source = MemorySource::kAsync;
  r.name_site = api;
  r.address = 0x7f0000000100;
  r.bytes = (1ull << 40) + 1;
  r.device = 7;
  r.result = 2;
  r.stream = 0xabc;
  r.pool = 0xdef;
  r.python_stack = 5;
  Recorder::memory(r);
  Recorder::pop();
  MemoryRecord program;
  program.op = MemoryOp::kFree;
  program.source = MemorySource::kProgram;
  program.name_site = pool;
  program.address = 0x1000;
  Recorder::memory(program);  // outside every scope, on the host
  Trace t = replay_all();
  ASSERT_EQ(t.memory.size(), 2u);
  const MemoryEvent& e = t.memory[0];
  EXPECT_EQ(e.scope, 0u);
  EXPECT_EQ(e.op, MemoryOp::kAlloc);
  EXPECT_EQ(e.source, MemorySource::kAsync);
  EXPECT_EQ(t.strings.view(e.name), "cuMemAllocAsync");
  EXPECT_EQ(e.address, 0x7f0000000100u);
  EXPECT_EQ(e.bytes, (1ull << 40) + 1);
  EXPECT_EQ(e.device, 7u);
  EXPECT_EQ(e.result, 2);
  EXPECT_EQ(e.stream, 0xabcu);
  EXPECT_EQ(e.pool, 0xdefu);
  EXPECT_EQ(e.python_stack, 4u) << "numbered as the trace's";
  EXPECT_GE(e.time_ns, t.nodes[0].start_ns);
  EXPECT_LE(e.time_ns, t.nodes[0].end_ns);
  const MemoryEvent& p = t.memory[1];
  EXPECT_EQ(p.scope, kNoNode);
  EXPECT_EQ(p.device, kHostDeviceId);
  EXPECT_EQ(p.python_stack, kNoPythonStack);
  EXPECT_EQ(t.strings.view(p.name), "kv_cache");
}

// A shapes record sets the innermost scope's shapes (its last one wins);
// the signature's text goes both ways.
TEST_F(RecorderTest, ShapesGoToTheInnermostScope) {
  const std::string sig =
      Recorder::shapes_signature("f32", {{1, 4096}, {4096, 4096}}, {1, 4096});
  EXPECT_EQ(sig, "f32|1x4096;4096x4096|1x4096");
  EXPECT_EQ(Recorder::shapes_signature("i32", {}, {}), "i32||_");
  uint32_t brick = Recorder::intern_site(NodeKind::kBrick, 1, "");
  Recorder::push(brick, 0);
  Recorder::shapes(Recorder::intern_api_name("bf16|2x3|7"));  // replaced by the next
  Recorder::shapes(Recorder::intern_api_name(sig));
  Recorder::pop();
  Recorder::shapes(Recorder::intern_api_name(sig));  // outside every scope: nowhere to go
  Trace t = replay_all();
  ASSERT_EQ(t.shapes.size(), 1u);
  EXPECT_EQ(t.shapes[0].node, 0u);
  EXPECT_EQ(t.shapes[0].dtype, "f32");
  EXPECT_EQ(t.shapes[0].inputs, (std::vector<std::vector<int64_t>>{{1, 4096}, {4096, 4096}}));
  EXPECT_EQ(t.shapes[0].output, (std::vector<int64_t>{1, 4096}));

  NodeShape s;
  EXPECT_TRUE(Recorder::parse_shapes_signature("q4_k|_;3|_", &s));
  EXPECT_EQ(s.inputs, (std::vector<std::vector<int64_t>>{{}, {3}}));
  EXPECT_TRUE(s.output.empty());
  for (const char* bad : {"", "f32", "f32|1x", "f32|1;|2", "|1|2", "f32|1|2x", "f32|a|1"})
    EXPECT_FALSE(Recorder::parse_shapes_signature(bad, &s)) << bad;
}

// A digest is kept beside the events and lands on the scope open when it
// was taken: by node, each node's in the order taken; one taken outside
// every scope has nowhere to go.
TEST_F(RecorderTest, ChecksumsGoToTheInnermostScope) {
  const uint32_t layer = Recorder::intern_site(NodeKind::kLayer, -1, "");
  const uint32_t brick = Recorder::intern_site(NodeKind::kBrick, 1, "");
  const float a[4] = {1, -2, 3, 4};
  const int32_t b[2] = {7, 8};
  const Digest da = digest_of(a, 4, ElementType::kF32);
  const Digest db = digest_of(b, 2, ElementType::kI32);
  Recorder::push(layer, 0);
  Recorder::push(brick, 4);
  Recorder::checksum(Recorder::intern_api_name("q"), ElementType::kF32, 0x1000, da);
  Recorder::checksum(Recorder::intern_api_name("k"), ElementType::kI32, 0x2000, db);
  Recorder::pop();
  Recorder::checksum(Recorder::intern_api_name("residual"), ElementType::kF32, 0x3000, da);
  Recorder::pop();
  Recorder::checksum(Recorder::intern_api_name("outside"), ElementType::kF32, 0x4000, da);
  const Trace t = replay_all();
  ASSERT_EQ(t.checksums.size(), 3u);
  EXPECT_EQ(t.checksums[0].node, 0u);  // the layer's, though taken last of the three
  EXPECT_EQ(t.strings.view(t.checksums[0].name), "residual");
  EXPECT_EQ(t.checksums[1].node, 1u);
  EXPECT_EQ(t.strings.view(t.checksums[1].name), "q");
  EXPECT_EQ(t.checksums[1].address, 0x1000u);
  EXPECT_EQ(t.checksums[1].digest.fnv1a, da.fnv1a);
  EXPECT_DOUBLE_EQ(t.checksums[1].digest.l2, da.l2);
  EXPECT_EQ(t.strings.view(t.checksums[2].name), "k");
  EXPECT_EQ(t.checksums[2].type, ElementType::kI32);
  EXPECT_EQ(t.checksums[2].digest.fnv1a, db.fnv1a);
  EXPECT_EQ(t.checksums[2].digest.count, 2u);
}

// Counter samples keep their value bit for bit and tokens their count,
// each under the scope open when it was recorded.
TEST_F(RecorderTest, CountersAndTokensRememberTheirScope) {
  uint32_t brick = Recorder::intern_site(NodeKind::kBrick, 1, "");
  Recorder::push(brick, 0);
  Recorder::counter(Recorder::intern_api_name("l2_hit_rate"), 0.9312345678901234);
  Recorder::tokens(17);
  Recorder::pop();
  Recorder::tokens(1ull << 40);  // outside every scope
  Trace t = replay_all();
  ASSERT_EQ(t.counters.size(), 3u);
  const CounterSample& c = t.counters[0];
  EXPECT_EQ(c.kind, CounterKind::kValue);
  EXPECT_EQ(t.strings.view(c.name), "l2_hit_rate");
  EXPECT_EQ(c.value, 0.9312345678901234);
  EXPECT_EQ(c.scope, 0u);
  EXPECT_GE(c.time_ns, t.nodes[0].start_ns);
  EXPECT_LE(c.time_ns, t.nodes[0].end_ns);
  EXPECT_EQ(t.counters[1].kind, CounterKind::kTokens);
  EXPECT_EQ(t.strings.view(t.counters[1].name), kTokensName);
  EXPECT_EQ(t.counters[1].value, 17.0);
  EXPECT_EQ(t.counters[1].scope, 0u);
  EXPECT_EQ(t.counters[2].value, static_cast<double>(1ull << 40));
  EXPECT_EQ(t.counters[2].scope, kNoNode);
}

// A thread that exits is retired by its key's destructor: its events stay
// (a short-lived thread's few words copied out of its 8 KiB chunk), a
// thread that recorded nothing leaves no entry, and its budget is given back.
TEST_F(RecorderTest, ExitedThreadsAreRetiredWithTheirEvents) {
  uint32_t s = Recorder::intern_site(NodeKind::kScope, -1, "short");
  const uint64_t before = thread_buffers::retired_count();
  for (int i = 0; i < 100; ++i) {
    std::thread([&] {
      Recorder::push(s, static_cast<uint64_t>(i));
      Recorder::pop();
    }).join();
  }
  std::thread([] { Recorder::thread_buffer(); }).join();  // registered, recorded nothing
  EXPECT_EQ(thread_buffers::retired_count() - before, 100u);
  // 100 threads' state now weighs their entries and their words, not 8 KiB each.
  EXPECT_LT(budget::used(), sites::bytes_held() + 100 * 1024 + (64 << 10));
  Trace t = replay_all();
  ASSERT_EQ(t.nodes.size(), 100u);
  uint64_t sum = 0;
  for (const Node& n : t.nodes) sum += n.elements;
  EXPECT_EQ(sum, 99u * 100 / 2);  // each thread's own scope, in thread order
  EXPECT_EQ(t.nodes[99].elements, 99u);
}

// A thread making its first record while the final dump reads the buffers:
// its first chunk is linked (head) before its cursor is published. The
// snapshot taken in between must not hand that chunk out as a sealed one,
// which a destructive dump would free under the thread writing into it.
TEST_F(RecorderTest, AFirstChunkNotYetPublishedIsNotHandedOut) {
  std::atomic<int> step{0};
  thread_buffers::Chunk* first = nullptr;
  uint32_t tid = 0;
  std::thread writer([&] {
    auto* tb = static_cast<thread_buffers::ThreadBuffer*>(Recorder::thread_buffer());
    tid = tb->tid;
    // What grow() does for a thread's first record, up to the publication.
    first = thread_buffers::allocate_chunk(1024);
    tb->head = tb->tail = first;
    tb->end = first->words + first->capacity;
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
  });
  while (step.load() != 1) std::this_thread::yield();
  std::vector<Recorder::ThreadEvents> threads = Recorder::snapshot();
  step = 2;
  writer.join();
  Recorder::resume_after_dump();
  for (const Recorder::ThreadEvents& t : threads) {
    if (t.tid != tid) continue;
    for (const Recorder::Segment& segment : t.segments)
      EXPECT_NE(segment.chunk, first) << "the live first chunk would be freed by the dump";
  }
}

TEST(ClockTest, TicksConvertToMonotonicNanoseconds) {
  Clock::init();
  int64_t before = monotonic_ns();
  uint64_t ticks = Clock::ticks();
  int64_t after = monotonic_ns();
  Clock c = Clock::fit_now();
  int64_t ns = c.to_ns(ticks);
  EXPECT_GE(ns, before - 1000);  // within a microsecond of the bracketing reads
  EXPECT_LE(ns, after + 1000);
}

}  // namespace
}  // namespace brickprof::agent
