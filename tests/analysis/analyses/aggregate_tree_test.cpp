// The aggregate tree and the tree renderer's thread groups and limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analysis/analyses/aggregate_tree.h"
#include "analysis/export/export_tree.h"
#include "tests/analysis/test_traces.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

TEST(AggregateTree, MergesRepeatsWithTotals) {
  Trace t = test::small_trace();
  AggregateTree tree = build_aggregate_tree(t);
  // top, one thread group, Layer 0, RmsNorm, kernel, Qkv, 2 kernels, H2D,
  // sync, Layer 1, RmsNorm, custom scope.
  ASSERT_EQ(tree.nodes.size(), 13u);
  EXPECT_FALSE(tree.multi_thread());
  uint32_t layer0 = tree.of_trace_node[0];
  EXPECT_EQ(tree.of_trace_node[13], layer0);
  EXPECT_EQ(tree.nodes[layer0].count, 2u);
  EXPECT_EQ(tree.nodes[layer0].total_ns, 1330000);
  EXPECT_EQ(tree.nodes[layer0].self_ns, 940000);
  uint32_t qkv = tree.of_trace_node[3];
  EXPECT_EQ(tree.of_trace_node[5], qkv);
  EXPECT_EQ(tree.nodes[qkv].elements, 8192u);
  EXPECT_EQ(tree.nodes[qkv].child_count, 2u);
  EXPECT_EQ(tree.of_trace_node[4], tree.of_trace_node[6]);
  // RmsNorm under Layer 1 is a different entry from RmsNorm under Layer 0.
  EXPECT_NE(tree.of_trace_node[11], tree.of_trace_node[1]);
}

TEST(AggregateTree, KernelsWithOtherLaunchConfigsStaySeparate) {
  Trace t = test::small_trace();
  t.gpu[t.nodes[6].detail].grid[0] = 64;
  AggregateTree tree = build_aggregate_tree(t);
  EXPECT_NE(tree.of_trace_node[4], tree.of_trace_node[6]);
}

TEST(TreeExport, GroupsRootsByThreadWhenSeveral) {
  Trace t = test::two_thread_trace(2);
  std::ostringstream out;
  write_tree(t, out);
  EXPECT_EQ(out.str(),
            "Execution Graph\n"
            "├── Thread 1 (main)\n"
            "│   └── Layer 0 1.00ms\n"
            "│       ├── B0 500ns (1 elem)\n"
            "│       └── B1 500ns (1 elem)\n"
            "└── Thread 2\n"
            "    └── Layer 0 1.00ms\n"
            "        ├── B0 500ns (1 elem)\n"
            "        └── B1 500ns (1 elem)\n");
}

TEST(TreeExport, WidthLimitSaysHowManyMore) {
  Trace t = test::two_thread_trace(5);
  std::ostringstream out;
  TreeOptions options;
  options.max_children = 2;
  write_tree(t, out, options);
  EXPECT_EQ(out.str(),
            "Execution Graph\n"
            "├── Thread 1 (main)\n"
            "│   └── Layer 0 1.00ms\n"
            "│       ├── B0 500ns (1 elem)\n"
            "│       ├── B1 500ns (1 elem)\n"
            "│       └── … 3 more\n"
            "└── Thread 2\n"
            "    └── Layer 0 1.00ms\n"
            "        ├── B0 500ns (1 elem)\n"
            "        ├── B1 500ns (1 elem)\n"
            "        └── … 3 more\n");
}

TEST(TreeExport, DepthLimitSaysHowManyMore) {
  Trace t = test::small_trace();
  std::ostringstream out;
  TreeOptions options;
  options.max_depth = 1;
  write_tree(t, out, options);
  EXPECT_EQ(out.str(),
            "Execution Graph\n"
            "├── Layer 0 1.33ms ×2\n"
            "│   └── … 4 more\n"
            "└── Layer 1 500.0µs\n"
            "    └── … 2 more\n");
}

TEST(TreeExport, DeepChainIsCutAtTheDepthLimit) {
  // Deep enough to overflow a recursive builder's stack.
  Trace t;
  uint32_t parent = kNoNode;
  for (int i = 0; i < 300000; ++i)
    parent = test::add_node(t, {.name = "s", .parent = parent, .end_ns = 300000 - i});
  std::ostringstream out;
  write_tree(t, out);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 32 + 1);
  EXPECT_NE(text.find("└── … 1 more\n"), std::string::npos);
}

TEST(TreeExport, EmptyTraceHasOnlyTheHeading) {
  Trace t;
  std::ostringstream out;
  write_tree(t, out);
  EXPECT_EQ(out.str(), "Execution Graph\n");
}

}  // namespace
}  // namespace brickprof
