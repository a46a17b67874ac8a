// subtrees_named: the part of a trace under scopes of one name.
#include "analysis/trace_subset.h"

#include <gtest/gtest.h>

#include "test_traces.h"

namespace brickprof::test {
namespace {

std::string name_of(const Trace& t, uint32_t id) { return std::string(t.name(t.nodes[id])); }

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

TEST(TraceSubset, NoSuchNameKeepsNothing) {
  const Subset s = subtrees_named(small_trace(), "decode token");
  EXPECT_EQ(s.roots, 0u);
  EXPECT_TRUE(s.trace.nodes.empty());
}

}  // namespace
}  // namespace brickprof::test
