// Kernel launch statistics on a hand-built trace: the launch call and the
// launch-to-start delay per direct launch, launch-bound kernels, graph
// replays counted per cuGraphLaunch.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/launch_stats.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

constexpr int64_t us = 1000;

// A kernel on thread 7 launched by the call [api_start, api_end] (µs; 0: no
// API times), from graph node `graph_node` (0: launched directly).
void kernel(Trace& t, const char* name, int64_t api_start, int64_t api_end, int64_t start,
            int64_t end, uint64_t correlation = 0, uint64_t graph_node = 0) {
  GpuDetail d;
  d.api_start_ns = api_start * us;
  d.api_end_ns = api_end * us;
  d.correlation = correlation;
  d.graph_node = graph_node;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kKernel,
                      .name = name,
                      .thread = 7,
                      .start_ns = start * us,
                      .end_ns = end * us},
                     d);
}

// Direct: a three times (calls of 2, 2, 10 µs; the second kernel runs 1 µs,
// shorter than its call), b without API times, d starting before its call
// (clocks a little apart: delay 0). Graph: two cuGraphLaunch calls (10 and
// 1 µs) each replaying a then c. A copy, which is not a kernel.
Trace launches() {
  Trace t;
  kernel(t, "a", 10, 12, 15, 20);
  kernel(t, "a", 20, 22, 25, 26);
  kernel(t, "a", 30, 40, 41, 61);
  kernel(t, "b", 0, 0, 45, 49);
  kernel(t, "a", 50, 60, 62, 65, 100, 1);
  kernel(t, "c", 50, 60, 66, 68, 100, 2);
  kernel(t, "a", 70, 71, 80, 83, 101, 1);
  kernel(t, "c", 70, 71, 84, 86, 101, 2);
  kernel(t, "d", 90, 91, 89, 90);
  Node copy;
  copy.kind = NodeKind::kTransfer;
  copy.name = t.strings.intern("memcpy HtoD");
  copy.start_ns = 100 * us;
  copy.end_ns = 200 * us;
  t.add_gpu_node(copy, GpuDetail{});
  return t;
}

TEST(LaunchStats, DirectLaunchesCallDelayAndLaunchBound) {
  LaunchStats r = analyze_launches(launches());
  EXPECT_EQ(r.kernels, 9u);
  EXPECT_EQ(r.direct, 5u);
  EXPECT_EQ(r.direct_gpu_ns, (5 + 1 + 20 + 4 + 1) * us);
  EXPECT_EQ(r.call.count, 4u);  // b has no call
  EXPECT_EQ(r.call.total_ns, (2 + 2 + 10 + 1) * us);
  EXPECT_EQ(r.call.median_ns, 2 * us);
  EXPECT_EQ(r.call.max_ns, 10 * us);
  EXPECT_EQ(r.delay.count, 4u);
  EXPECT_EQ(r.delay.median_ns, 5 * us);  // 0, 5, 5, 11
  EXPECT_EQ(r.delay.p99_ns, 11 * us);
  EXPECT_EQ(r.shorter_than_call, 1u);  // the second a; d's 1 µs equals its call
  EXPECT_EQ(r.shorter_gpu_ns, 1 * us);
}

TEST(LaunchStats, GraphReplaysCountPerGraphLaunch) {
  LaunchStats r = analyze_launches(launches());
  EXPECT_EQ(r.graph.kernels, 4u);
  EXPECT_EQ(r.graph.launches, 2u);
  EXPECT_EQ(r.graph.call.count, 2u);
  EXPECT_EQ(r.graph.call.median_ns, 1 * us);  // 1 and 10
  EXPECT_EQ(r.graph.call.max_ns, 10 * us);
  EXPECT_EQ(r.graph.first_delay.median_ns, 10 * us);  // 62 - 50 = 12, 80 - 70 = 10
  EXPECT_EQ(r.graph.first_delay.max_ns, 12 * us);
}

TEST(LaunchStats, PerKernelAndPathByGpuTime) {
  LaunchStats r = analyze_launches(launches());
  ASSERT_EQ(r.by_kernel.size(), 5u);
  const KernelLaunches& a = r.by_kernel[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_FALSE(a.from_graph);
  EXPECT_EQ(a.count, 3u);
  EXPECT_EQ(a.gpu.total_ns, 26 * us);
  EXPECT_EQ(a.gpu.median_ns, 5 * us);
  EXPECT_EQ(a.call.median_ns, 2 * us);
  EXPECT_EQ(a.delay.max_ns, 11 * us);
  EXPECT_EQ(a.shorter_than_call, 1u);
  const KernelLaunches& a_graph = r.by_kernel[1];
  EXPECT_EQ(a_graph.name, "a");
  EXPECT_TRUE(a_graph.from_graph);
  EXPECT_EQ(a_graph.count, 2u);
  EXPECT_EQ(a_graph.gpu.total_ns, 6 * us);
  EXPECT_EQ(a_graph.call.count, 0u);            // a graph kernel has no call of its own
  EXPECT_EQ(a_graph.delay.median_ns, 10 * us);  // 12 and 10 after their graph launch
  EXPECT_EQ(r.by_kernel[2].name, "b");          // 4 µs, before c's 4 µs: names in order met
  EXPECT_EQ(r.by_kernel[2].delay.count, 0u);
  EXPECT_EQ(r.by_kernel[3].name, "c");
  EXPECT_EQ(r.by_kernel[3].delay.median_ns, 14 * us);  // 66 - 50 = 16, 84 - 70 = 14
  EXPECT_EQ(r.by_kernel[4].name, "d");
  EXPECT_EQ(r.by_kernel[4].delay.median_ns, 0);
}

TEST(LaunchStats, NoKernelsIsSaid) {
  Trace t;
  test::add_node(t, {.kind = NodeKind::kScope, .name = "work", .end_ns = 10});
  std::ostringstream text;
  text << test::render("launches", t, {}, false);
  EXPECT_EQ(text.str(), "Kernel launches: no kernels in the trace\n");
}

TEST(LaunchStats, TextNamesTheLaunchBoundShare) {
  std::ostringstream text;
  text << test::render("launches", launches(), {}, false);
  EXPECT_NE(text.str().find("Kernel launches: 9 kernels, 5 launched one by one, 4 replayed by 2 "
                            "graph launches\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("launch-bound (shorter on the GPU than their launch call): 1 of 4 "
                            "(25.0%), 1.0µs of 31.0µs GPU time\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("graph launch call: median 1.0µs, p99 10.0µs, max 10.0µs\n"),
            std::string::npos)
      << text.str();
}

// BRICKPROF_CUDA_GRAPH_TRACE=graph: each replay is one interval (graph_id
// set, no graph node). Those are graph launches with their call and delay,
// a row of their own, and not kernels; a direct kernel beside them stays one.
TEST(LaunchStats, WholeGraphReplaysAreLaunchesNotKernels) {
  Trace t;
  kernel(t, "k", 1, 3, 4, 6);
  for (int i = 0; i < 3; ++i) {
    kernel(t, "CUDA graph 2", 10 + 100 * i, 12 + 100 * i, 15 + 100 * i, 95 + 100 * i, 200 + i);
    t.gpu.back().graph_id = 2;
  }
  LaunchStats r = analyze_launches(t);
  EXPECT_EQ(r.kernels, 1u);
  EXPECT_EQ(r.direct, 1u);
  EXPECT_EQ(r.graph.kernels, 0u);
  EXPECT_EQ(r.graph.whole, 3u);
  EXPECT_EQ(r.graph.launches, 3u);
  EXPECT_EQ(r.graph.call.median_ns, 2 * us);
  EXPECT_EQ(r.graph.first_delay.median_ns, 5 * us);
  ASSERT_EQ(r.by_kernel.size(), 2u);
  EXPECT_EQ(r.by_kernel[0].name, "CUDA graph 2");
  EXPECT_TRUE(r.by_kernel[0].from_graph);
  EXPECT_EQ(r.by_kernel[0].count, 3u);
  EXPECT_EQ(r.by_kernel[0].gpu.median_ns, 80 * us);
  std::ostringstream text;
  text << test::render("launches", t, {}, false);
  EXPECT_NE(text.str().find("Kernel launches: 1 kernels, 1 launched one by one, 3 graph replays "
                            "traced whole (kernels inside not seen)\n"),
            std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace brickprof
