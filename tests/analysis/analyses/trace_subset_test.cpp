// subtrees_named: the part of a trace under scopes of one name; source_subset:
// one process of a merged trace.
#include "analysis/analyses/trace_subset.h"
#include "tests/support/trace_builder.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analysis/views/views.h"
#include "tests/support/test_traces.h"

namespace brickprof::test {
namespace {

std::string name_of(const Trace& t, uint32_t id) { return std::string(t.name(t.nodes[id])); }

std::string json_of(std::string_view view, const Trace& t) {
  std::ostringstream out;
  render_view(*find_view(view), t, compute_view(*find_view(view), t, {}), true, out);
  return out.str();
}

TEST(TraceSubset, KeepsTheNamedScopesTheirDescendantsAndTheirGpuWork) {
  const Trace t = small_trace();  // two "Layer 0" roots and a "Layer 1"
  const Subset s = subtrees_named(t, "Layer 0");
  EXPECT_EQ(s.roots, 2u);
  ASSERT_EQ(s.trace.nodes.size(), 12u);  // ten under the first, two under the second
  size_t kernels = 0;
  for (uint32_t i = 0; i < s.trace.nodes.size(); ++i) {
    const Node& n = s.trace.nodes[i];
    EXPECT_NE(name_of(s.trace, i), "Layer 1");
    if (n.kind == NodeKind::kKernel) {
      ++kernels;
      ASSERT_NE(s.trace.detail(n), nullptr);  // details follow their nodes
      EXPECT_NE(n.parent, kNoNode);
    }
    if (n.kind == NodeKind::kLayer) {
      EXPECT_EQ(n.parent, kNoNode);
    }
  }
  EXPECT_EQ(kernels, 4u);
  for (const Edge& e : s.trace.edges) {
    ASSERT_LT(e.src, s.trace.nodes.size());
    ASSERT_LT(e.dst, s.trace.nodes.size());
  }
}

TEST(TraceSubset, ANamedScopeInsideAnotherIsNotASecondRoot) {
  Trace t;
  Node step;
  step.name = t.strings.intern("step");
  const uint32_t outer = t.add_node(step);
  step.parent = outer;
  const uint32_t inner = t.add_node(step);
  Node leaf;
  leaf.name = t.strings.intern("work");
  leaf.parent = inner;
  t.add_node(leaf);
  const Subset s = subtrees_named(t, "step");
  EXPECT_EQ(s.roots, 1u);
  EXPECT_EQ(s.trace.nodes.size(), 3u);
}

TEST(TraceSubset, ChildrenListedBeforeTheirParentsKeepTheirParent) {
  // As a merged trace may order them: leaf (0) -> step (1) -> outside (2).
  Trace t;
  Node leaf, step, outside;
  leaf.name = t.strings.intern("work");
  leaf.parent = 1;
  step.name = t.strings.intern("step");
  step.parent = 2;
  outside.name = t.strings.intern("main");
  t.add_node(leaf);
  t.add_node(step);
  t.add_node(outside);
  t.add_edge(1, 0, EdgeType::kContains);
  t.add_edge(2, 1, EdgeType::kContains);
  const Subset s = subtrees_named(t, "step");
  ASSERT_EQ(s.trace.nodes.size(), 2u);
  EXPECT_EQ(name_of(s.trace, 0), "work");
  EXPECT_EQ(s.trace.nodes[0].parent, 1u);
  EXPECT_EQ(s.trace.nodes[1].parent, kNoNode);
  ASSERT_EQ(s.trace.edges.size(), 1u);  // the edge from outside is gone
  EXPECT_EQ(s.trace.edges[0].src, 1u);
}

// "warm-up" (node 0) then "decode token" (node 1) launching k (node 2).
Trace warm_up_then_decode() {
  Trace t;
  add_node(t, {.name = "warm-up", .thread = 1, .end_ns = 1'000});
  const uint32_t decode =
      add_node(t, {.name = "decode token", .thread = 1, .start_ns = 1'000, .end_ns = 3'000});
  GpuDetail d;
  d.api_start_ns = 1'100;
  d.api_end_ns = 1'200;
  add_gpu_node(t,
               {.kind = NodeKind::kKernel,
                .name = "k",
                .parent = decode,
                .thread = 1,
                .start_ns = 1'300,
                .end_ns = 2'800},
               d);
  return t;
}

// The views of a part name its nodes by their ids in the file: node 1 is
// "decode token" in the file, and so it is under --under.
TEST(TraceSubset, ViewsOfAPartNameNodesByTheirIdsInTheFile) {
  const Subset s = subtrees_named(warm_up_then_decode(), "decode token");
  ASSERT_EQ(s.roots, 1u);
  const std::string json = json_of("critical-path", s.trace);
  EXPECT_NE(json.find("{\"node\":1,\"name\":\"decode token\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"node\":2,\"name\":\"k\""), std::string::npos) << json;
  EXPECT_EQ(json.find("{\"node\":0,"), std::string::npos) << json;
}

// --under names scopes: a kernel's name keeps nothing (bad input for the
// command line).
TEST(TraceSubset, AKernelNameIsNoScope) {
  const Subset s = subtrees_named(warm_up_then_decode(), "k");
  EXPECT_EQ(s.roots, 0u);
  EXPECT_TRUE(s.trace.nodes.empty());
}

// A merged trace of two processes: each source's nodes by its threads.
TEST(TraceSubset, OneSourceOfAMergedTrace) {
  Trace t;
  auto node = [&](const char* name, uint32_t thread, uint32_t parent, NodeKind kind) {
    const NodeSpec n{.kind = kind, .name = name, .parent = parent, .thread = thread};
    return kind == NodeKind::kKernel ? add_gpu_node(t, n) : add_node(t, n);
  };
  const uint32_t a = node("step", 1, kNoNode, NodeKind::kScope);  // rank 0, thread 1
  node("k0", 1, a, NodeKind::kKernel);
  const uint32_t b = node("step", 2, kNoNode, NodeKind::kScope);  // rank 1, threads 2 and 3
  node("k1", 2, b, NodeKind::kKernel);
  node("helper", 3, kNoNode, NodeKind::kScope);
  t.add_edge(a, b, EdgeType::kSequence);  // across ranks: dropped from either part
  t.threads = {{1, "rank 0: main"}, {2, "rank 1: main"}, {3, "rank 1: helper"}};
  SourceInfo r0, r1;
  r0.label = "rank 0";
  r0.process.pid = 100;
  r0.cupti = "ok";
  r0.threads = {{1, 11}};
  r1.label = "rank 1";
  r1.process.pid = 200;
  r1.threads = {{2, 11}, {3, 12}};
  t.sources = {r0, r1};

  const Subset zero = source_subset(t, 0);
  EXPECT_EQ(zero.roots, 1u);
  ASSERT_EQ(zero.trace.nodes.size(), 2u);
  EXPECT_EQ(name_of(zero.trace, 1), "k0");
  EXPECT_EQ(zero.trace.nodes[1].parent, 0u);
  ASSERT_NE(zero.trace.detail(zero.trace.nodes[1]), nullptr);
  EXPECT_EQ(zero.trace.process.pid, 100);  // reads like rank 0's own trace
  EXPECT_EQ(zero.trace.diagnostics.cupti, "ok");
  EXPECT_TRUE(zero.trace.sources.empty());
  ASSERT_EQ(zero.trace.threads.size(), 1u);
  EXPECT_TRUE(zero.trace.edges.empty());

  const Subset one = source_subset(t, 1);
  EXPECT_EQ(one.roots, 2u);  // its step and the helper thread's scope
  EXPECT_EQ(one.trace.nodes.size(), 3u);
  EXPECT_EQ(one.trace.threads.size(), 2u);
  EXPECT_EQ(one.trace.process.pid, 200);

  EXPECT_EQ(source_subset(t, 2).roots, 0u);              // no such source
  EXPECT_EQ(source_subset(small_trace(), 0).roots, 0u);  // not merged
}

TEST(TraceSubset, NoSuchNameKeepsNothing) {
  const Subset s = subtrees_named(small_trace(), "decode token");
  EXPECT_EQ(s.roots, 0u);
  EXPECT_TRUE(s.trace.nodes.empty());
}

}  // namespace
}  // namespace brickprof::test
