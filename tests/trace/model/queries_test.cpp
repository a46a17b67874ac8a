// Query helpers: children (CSR), roots, kernels, slowest kernel, balance.
#include <gtest/gtest.h>

#include "tests/support/test_traces.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

std::vector<uint32_t> list(std::span<const uint32_t> s) { return {s.begin(), s.end()}; }

TEST(Queries, ChildrenAndRootsInStartOrder) {
  Trace t = test::small_trace();
  ChildIndex index(t);
  EXPECT_EQ(list(index.roots()), (std::vector<uint32_t>{0, 10, 13}));
  EXPECT_EQ(list(index.children(0)), (std::vector<uint32_t>{1, 3, 5, 8, 9}));
  EXPECT_EQ(list(index.children(5)), (std::vector<uint32_t>{6, 7}));
  EXPECT_TRUE(index.children(2).empty());
}

TEST(Queries, ChildrenOutOfIdOrderAreSortedByStart) {
  Trace t = test::small_trace();
  std::swap(t.nodes[6].start_ns, t.nodes[7].start_ns);
  std::swap(t.nodes[6].end_ns, t.nodes[7].end_ns);
  ChildIndex index(t);
  EXPECT_EQ(list(index.children(5)), (std::vector<uint32_t>{7, 6}));
}

TEST(Queries, KernelsAndSlowest) {
  Trace t = test::small_trace();
  EXPECT_EQ(kernel_nodes(t), (std::vector<uint32_t>{2, 4, 6, 7}));
  auto slow = slowest_kernel(t);
  ASSERT_TRUE(slow.has_value());
  EXPECT_EQ(slow->kernel, 4u);
  EXPECT_EQ(slow->brick, 3u);
  EXPECT_EQ(slow->gpu_ns, 100000);
  EXPECT_FALSE(slowest_kernel(Trace{}).has_value());
}

TEST(Queries, ScopeBalanceComesFromDiagnostics) {
  Trace t = test::small_trace();
  EXPECT_TRUE(is_scope_balanced(t));
  t.diagnostics.unbalanced_pops = 1;
  EXPECT_FALSE(is_scope_balanced(t));
  t.diagnostics.unbalanced_pops = 0;
  t.diagnostics.open_scopes_at_exit = 2;
  EXPECT_FALSE(is_scope_balanced(t));
}

TEST(Queries, LabelsForUnnamedNodes) {
  Trace t;
  Node layer;
  layer.kind = NodeKind::kLayer;
  layer.layer_index = 7;
  EXPECT_EQ(node_label(t, layer), "Layer 7");
  Node brick;
  brick.kind = NodeKind::kBrick;
  brick.brick_id = 0;
  EXPECT_EQ(node_label(t, brick), "RmsNorm");
  Node x;
  x.kind = NodeKind::kTransfer;
  GpuDetail d;
  d.direction = Direction::kD2H;
  uint32_t id = t.add_gpu_node(x, d);
  EXPECT_EQ(node_label(t, t.nodes[id]), "D2H");
  t.threads = {{5, "worker"}};
  EXPECT_EQ(thread_label(t, 5), "Thread 5 (worker)");
  EXPECT_EQ(thread_label(t, 6), "Thread 6");
}

// A transfer whose direction was not recorded keeps its recorded name
// ("memcpy DtoH" from a trace written elsewhere); with no name it is a
// memcpy, and with a direction the direction says it.
TEST(Queries, TransferOfUnknownDirectionShowsItsName) {
  Trace t;
  Node named;
  named.kind = NodeKind::kTransfer;
  named.name = t.strings.intern("memcpy DtoH");
  GpuDetail unknown;
  unknown.direction = Direction::kUnknown;
  EXPECT_EQ(node_label(t, t.nodes[t.add_gpu_node(named, unknown)]), "memcpy DtoH");
  Node unnamed;
  unnamed.kind = NodeKind::kTransfer;
  EXPECT_EQ(node_label(t, t.nodes[t.add_gpu_node(unnamed, unknown)]), "memcpy");
  EXPECT_EQ(node_label(t, unnamed), "memcpy");  // no GPU detail at all
  GpuDetail d2h;
  d2h.direction = Direction::kD2H;
  EXPECT_EQ(node_label(t, t.nodes[t.add_gpu_node(named, d2h)]), "D2H");
}

}  // namespace
}  // namespace brickprof
