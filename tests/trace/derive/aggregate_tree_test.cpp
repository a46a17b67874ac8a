// The aggregate tree and the tree renderer's thread groups and limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "tests/support/test_traces.h"
#include "tests/support/trace_builder.h"
#include "trace/derive/aggregate_tree.h"
#include "trace/formats/tree.h"
#include "trace/model/recorded.h"
#include "trace/output/whole_trace.h"

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
  write_format("tree", t, out);
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
  TreeSink sink(out, options);
  WholeTrace(t).feed(sink);
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
  TreeSink sink(out, options);
  WholeTrace(t).feed(sink);
  EXPECT_EQ(out.str(),
            "Execution Graph\n"
            "├── Layer 0 1.33ms ×2\n"
            "│   └── … 4 more\n"
            "├── Layer 1 500.0µs\n"
            "│   └── … 2 more\n"
            "└── (outside every scope) 2.17ms\n");
}

TEST(TreeExport, DeepChainIsCutAtTheDepthLimit) {
  // Deep enough to overflow a recursive builder's stack.
  Trace t;
  uint32_t parent = kNoNode;
  for (int i = 0; i < 300000; ++i)
    parent = test::add_node(t, {.name = "s", .parent = parent, .end_ns = 300000 - i});
  std::ostringstream out;
  write_format("tree", t, out);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 32 + 1);
  EXPECT_NE(text.find("└── … 1 more\n"), std::string::npos);
}

TEST(TreeExport, EmptyTraceSaysNothingWasRecorded) {
  Trace t;
  t.process.start_ns = 1000;
  t.process.end_ns = 5000;
  std::ostringstream out;
  write_format("tree", t, out);
  EXPECT_EQ(out.str(), "Execution Graph\n" + std::string(kNothingRecorded) + "\n");
}

// The top-level rows add up to the run: the time outside every scope is a
// row of its own, the union of the outermost scopes on every thread taken
// off the process's span (overlapping threads counted once).
TEST(TreeExport, TimeOutsideEveryScopeIsARow) {
  Trace t;
  t.process.start_ns = 0;
  t.process.end_ns = 1000;
  t.threads = {{1, "main"}, {2, "worker"}};
  test::add_node(
      t, {.kind = NodeKind::kScope, .name = "load", .thread = 1, .start_ns = 100, .end_ns = 300});
  test::add_node(
      t, {.kind = NodeKind::kScope, .name = "step", .thread = 1, .start_ns = 400, .end_ns = 700});
  test::add_node(
      t, {.kind = NodeKind::kScope, .name = "io", .thread = 2, .start_ns = 600, .end_ns = 800});
  const AggregateTree tree = build_aggregate_tree(t);
  EXPECT_EQ(tree.scoped_ns, 200 + 400);  // [100,300] and [400,800]
  EXPECT_EQ(time_outside_scopes(t, tree), 400);
  std::ostringstream out;
  write_tree(t, tree, out);
  EXPECT_NE(out.str().find("└── (outside every scope) 400ns\n"), std::string::npos) << out.str();

  // A part of the run (report --under) has no such row, nor a trace
  // without process times.
  AggregateTree part = build_aggregate_tree(t);
  part.whole_trace = false;
  EXPECT_EQ(time_outside_scopes(t, part), -1);
  t.process = {};
  EXPECT_EQ(time_outside_scopes(t, build_aggregate_tree(t)), -1);
}

}  // namespace
}  // namespace brickprof
