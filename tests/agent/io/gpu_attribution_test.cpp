// GPU records attributed in place by the exit write (agent/io/gpu_attribution.h):
// the scope, thread, API times and Python stack of the call that launched
// each record, the capturing scope for a graph replay, copy addresses from
// the dump, records launched outside the capture windows left out, ids in
// staged order and each scope's work together. The records are staged by
// hand, as translate() stages them (no parent, thread 0, no API times).
#include <gtest/gtest.h>

#include <unordered_map>
#include <utility>

#include "agent/gpu_source.h"
#include "agent/io/gpu_attribution.h"

namespace brickprof::agent {
namespace {

// The dump of a GPU source, over records staged here. What attribution
// asks of it copies CuptiDump (agent/cupti/cupti_source.cpp): clones
// followed back to the captured node, addresses by the copy's correlation.
class TestDump final : public GpuDump {
 public:
  StagedRecords staged;
  bool recorded_only = false;
  std::unordered_map<uint64_t, uint64_t> origin;                          // clone -> captured node
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> addresses;  // correlation -> src, dst

  // Stages a record as translate() would; returns its index.
  size_t add(NodeKind kind, uint64_t correlation, int64_t start_ns, uint64_t graph_node = 0) {
    Node n;
    n.kind = kind;
    EXPECT_TRUE(staged.intern(kind == NodeKind::kKernel ? "k" : "memcpy HtoD", &n.name));
    n.start_ns = start_ns;
    n.end_ns = start_ns + 10;
    GpuDetail d;
    d.correlation = correlation;
    d.graph_node = graph_node;
    EXPECT_TRUE(staged.add(n, d));
    return staged.size() - 1;
  }

  StagedRecords& records() override { return staged; }
  bool recorded_launches_only() const override { return recorded_only; }
  uint64_t original_graph_node(uint64_t graph_node) const override {
    auto o = origin.find(graph_node);
    return o == origin.end() ? graph_node : o->second;
  }
  void fill_addresses(NodeKind, GpuDetail& d) const override {
    auto a = addresses.find(d.correlation);
    if (a == addresses.end()) return;
    d.src_addr = a->second.first;
    d.dst_addr = a->second.second;
  }
  void contribute_header(Trace&, uint64_t) override {}
};

// Scope ids as the walk numbers them: a layer and a brick inside it.
constexpr uint32_t kLayer = 0, kBrick = 1;

TEST(GpuAttribution, KernelTakesTheLaunchingScopeThreadTimesAndStack) {
  TestDump dump;
  dump.add(NodeKind::kKernel, 42, 1000);
  GpuAttribution gpu(&dump);
  gpu.launch(42, kBrick, 777, 900, 950, 3);
  gpu.finish(2);
  EXPECT_EQ(gpu.count(), 1u);
  EXPECT_EQ(gpu.left_out(), 0u);
  const StagedRecord& r = gpu.record(0);
  EXPECT_EQ(r.id, 2u);  // numbered after the CPU nodes
  EXPECT_EQ(r.node.parent, kBrick);
  EXPECT_EQ(r.node.thread, 777u);
  EXPECT_EQ(r.detail.api_start_ns, 900);
  EXPECT_EQ(r.detail.api_end_ns, 950);
  EXPECT_EQ(r.detail.python_stack, 3u);
  EXPECT_EQ(gpu.name(r), "k");
}

// Should two calls carry one correlation id, the last seen wins (as in the
// tests' oracle, tests/agent/support/replay_oracle.h).
TEST(GpuAttribution, TheLastCallWithAnIdWins) {
  TestDump dump;
  dump.add(NodeKind::kKernel, 7, 100);
  GpuAttribution gpu(&dump);
  gpu.launch(7, kLayer, 1, 10, 20, kNoPythonStack);
  gpu.launch(7, kBrick, 2, 30, 40, kNoPythonStack);
  gpu.finish(2);
  EXPECT_EQ(gpu.record(0).node.parent, kBrick);
  EXPECT_EQ(gpu.record(0).node.thread, 2u);
  EXPECT_EQ(gpu.record(0).detail.api_start_ns, 30);
}

// BRICKPROF_CAPTURE: records whose launch was not recorded (outside every
// window) are left out and counted; with the whole run recorded they stay,
// as roots.
TEST(GpuAttribution, WorkLaunchedOutsideTheWindowsIsLeftOutAndCounted) {
  for (bool recorded_only : {true, false}) {
    TestDump dump;
    dump.recorded_only = recorded_only;
    dump.add(NodeKind::kKernel, 9, 1000);
    dump.add(NodeKind::kKernel, 5, 1000);  // launched before the window
    GpuAttribution gpu(&dump);
    gpu.launch(9, kBrick, 777, 900, 950, kNoPythonStack);
    gpu.finish(2);
    EXPECT_EQ(gpu.left_out(), recorded_only ? 1u : 0u);
    EXPECT_EQ(gpu.count(), recorded_only ? 1u : 2u);
    EXPECT_EQ(gpu.record(0).id, 2u);
    EXPECT_EQ(gpu.record(1).id, recorded_only ? kNoNode : 3u);
    EXPECT_EQ(gpu.record(1).node.parent, kNoNode);
    EXPECT_EQ(gpu.by_parent().size(), gpu.count());
  }
}

// A kernel replayed from a graph goes under the scope open when its node
// was captured, not the one around cudaGraphLaunch; the node it was
// cloned from is asked first, then its own id; a node captured outside
// every scope leaves the launch's scope.
TEST(GpuAttribution, GraphReplayGoesToTheCapturingScope) {
  TestDump dump;
  dump.origin = {{0xC10E, 0x0816}, {0xC20E, 0x0826}};
  const size_t cloned = dump.add(NodeKind::kKernel, 900, 100, 0xC10E);
  const size_t own_id = dump.add(NodeKind::kKernel, 900, 110, 0xC20E);
  const size_t outside = dump.add(NodeKind::kKernel, 900, 120, 0xC30E);
  const size_t both = dump.add(NodeKind::kKernel, 901, 130, 0xC40E);
  dump.origin[0xC40E] = 0x0846;
  GpuAttribution gpu(&dump);
  gpu.graph_node(0x0816, kBrick);  // captured before the launch
  gpu.launch(900, kLayer, 1, 50, 60, kNoPythonStack);
  gpu.launch(901, kLayer, 1, 70, 80, kNoPythonStack);
  gpu.graph_node(0xC20E, kBrick);   // only the clone's own id was seen
  gpu.graph_node(0xC30E, kNoNode);  // captured outside every scope
  gpu.graph_node(0xC40E, kLayer);   // both seen: the captured node's wins
  gpu.graph_node(0x0846, kBrick);
  gpu.finish(2);
  EXPECT_EQ(gpu.record(cloned).node.parent, kBrick);
  EXPECT_EQ(gpu.record(cloned).detail.api_start_ns, 50);  // the launch's times still
  EXPECT_EQ(gpu.record(own_id).node.parent, kBrick);
  EXPECT_EQ(gpu.record(outside).node.parent, kLayer);
  EXPECT_EQ(gpu.record(both).node.parent, kBrick);
  EXPECT_EQ(gpu.record(cloned).detail.graph_node, 0xC10Eu);  // its own id kept
}

// A whole graph replay (BRICKPROF_CUDA_GRAPH_TRACE=graph) has no node id:
// it goes under the scope around the launch.
TEST(GpuAttribution, WholeGraphReplayGoesToTheLaunchingScope) {
  TestDump dump;
  dump.add(NodeKind::kKernel, 77, 1000);
  GpuAttribution gpu(&dump);
  gpu.graph_node(0x0816, kBrick);
  gpu.launch(77, kLayer, 9, 500, 900, kNoPythonStack);
  gpu.finish(2);
  EXPECT_EQ(gpu.record(0).node.parent, kLayer);
  EXPECT_EQ(gpu.record(0).detail.api_start_ns, 500);
}

// Copies and memsets get the addresses the dump has for them; work with
// no launch recorded stays a root, after every scope's work.
TEST(GpuAttribution, CopiesGetAddressesAndOrphansComeLast) {
  TestDump dump;
  dump.addresses = {{5, {0x7f0000001000, 0x700000000}}, {6, {0x1, 0x2}}};
  const size_t orphan = dump.add(NodeKind::kTransfer, 6, 100);
  const size_t copy = dump.add(NodeKind::kTransfer, 5, 500);
  const size_t late = dump.add(NodeKind::kKernel, 8, 900);
  const size_t early = dump.add(NodeKind::kKernel, 10, 300);
  const size_t layer_work = dump.add(NodeKind::kKernel, 11, 950);
  GpuAttribution gpu(&dump);
  gpu.launch(5, kBrick, 1, 400, 450, kNoPythonStack);
  gpu.launch(8, kBrick, 1, 800, 850, kNoPythonStack);
  gpu.launch(10, kBrick, 1, 200, 250, kNoPythonStack);
  gpu.launch(11, kLayer, 1, 940, 945, kNoPythonStack);
  gpu.finish(2);
  EXPECT_EQ(gpu.record(copy).detail.src_addr, 0x7f0000001000u);
  EXPECT_EQ(gpu.record(copy).detail.dst_addr, 0x700000000u);
  EXPECT_EQ(gpu.record(orphan).detail.src_addr, 0x1u);  // a copy still, if an orphan
  EXPECT_EQ(gpu.record(orphan).node.parent, kNoNode);
  EXPECT_EQ(gpu.record(late).detail.src_addr, 0u);  // kernels have none
  // Ids in staged order; by parent, then start.
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(gpu.record(i).id, 2 + i);
  const std::vector<uint32_t> expected = {
      static_cast<uint32_t>(layer_work), static_cast<uint32_t>(early), static_cast<uint32_t>(copy),
      static_cast<uint32_t>(late), static_cast<uint32_t>(orphan)};
  EXPECT_EQ(gpu.by_parent(), expected);
}

// A dump before an exec that failed wrote into the records: the next one
// starts from what translate() staged.
TEST(GpuAttribution, ASecondDumpStartsAfresh) {
  TestDump dump;
  dump.add(NodeKind::kKernel, 42, 1000, 0xC10E);
  {
    GpuAttribution first(&dump);
    first.launch(42, kLayer, 777, 900, 950, 3);
    first.graph_node(0xC10E, kBrick);
    first.finish(2);
    ASSERT_EQ(first.record(0).node.parent, kBrick);
  }
  GpuAttribution second(&dump);
  second.finish(5);
  const StagedRecord& r = second.record(0);
  EXPECT_EQ(r.id, 5u);
  EXPECT_EQ(r.node.parent, kNoNode);
  EXPECT_EQ(r.node.thread, 0u);
  EXPECT_EQ(r.detail.api_start_ns, 0);
  EXPECT_EQ(r.detail.python_stack, kNoPythonStack);
}

TEST(GpuAttribution, NoGpuSourceNoRecords) {
  GpuAttribution gpu(nullptr);
  gpu.launch(1, kBrick, 1, 2, 3, kNoPythonStack);
  gpu.graph_node(4, kBrick);
  gpu.finish(2);
  EXPECT_EQ(gpu.count(), 0u);
  EXPECT_EQ(gpu.staged(), 0u);
  EXPECT_TRUE(gpu.by_parent().empty());
}

}  // namespace
}  // namespace brickprof::agent
