// Per-brick statistics: a brick's GPU time is the sum of the kernels it
// launched (README.md, "What it guarantees"); its copies and memsets are the
// transfers view's, its synchronisations host waits.
#include "trace/derive/stats.h"

#include <gtest/gtest.h>

#include "tests/support/trace_builder.h"

namespace brickprof::test {
namespace {

// RmsNorm [0, 20 µs] launches k1 (GPU [1.5, 2.5]), copies 4 KiB [2.6, 2.8],
// and waits in cuStreamSynchronize [3, 9].
Trace brick_with_a_wait() {
  Trace t;
  const uint32_t brick = add_node(t, {.kind = NodeKind::kBrick,
                                      .category = Category::kNorm,
                                      .brick_id = 0,
                                      .name = "RmsNorm",
                                      .thread = 1,
                                      .end_ns = 20'000});
  add_gpu_node(t, {.kind = NodeKind::kKernel,
                   .name = "k1",
                   .parent = brick,
                   .thread = 1,
                   .start_ns = 1'500,
                   .end_ns = 2'500});
  GpuDetail copy;
  copy.direction = Direction::kH2D;
  copy.bytes = 4096;
  add_gpu_node(t,
               {.kind = NodeKind::kTransfer,
                .name = "cuMemcpyHtoDAsync",
                .parent = brick,
                .thread = 1,
                .start_ns = 2'600,
                .end_ns = 2'800},
               copy);
  GpuDetail sync;
  sync.sync = SyncKind::kStream;
  add_gpu_node(t,
               {.kind = NodeKind::kSync,
                .name = "cuStreamSynchronize",
                .parent = brick,
                .thread = 1,
                .start_ns = 3'000,
                .end_ns = 9'000},
               sync);
  return t;
}

TEST(Stats, ABricksGpuTimeIsItsKernels) {
  const TraceStats s = compute_stats(brick_with_a_wait());
  ASSERT_EQ(s.bricks.size(), 1u);
  EXPECT_EQ(s.bricks[0].gpu_ns, 1'000);
  EXPECT_EQ(s.bricks[0].kernels, 1u);
  EXPECT_EQ(s.bricks[0].total_ns, 20'000);
}

// The kernels of a nested brick are the inner brick's, not the outer's.
TEST(Stats, KernelsCountForTheirNearestBrick) {
  Trace t = brick_with_a_wait();
  const uint32_t inner = add_node(t, {.kind = NodeKind::kBrick,
                                      .name = "Inner",
                                      .parent = 0,
                                      .thread = 1,
                                      .start_ns = 10'000,
                                      .end_ns = 12'000});
  add_gpu_node(t, {.kind = NodeKind::kKernel,
                   .name = "k2",
                   .parent = inner,
                   .thread = 1,
                   .start_ns = 10'500,
                   .end_ns = 11'000});
  const TraceStats s = compute_stats(t);
  ASSERT_EQ(s.bricks.size(), 2u);
  EXPECT_EQ(s.bricks[0].gpu_ns, 1'000);
  EXPECT_EQ(s.bricks[1].gpu_ns, 500);
  EXPECT_EQ(s.bricks[1].kernels, 1u);
}

// Each brick's total counts whole in its category, a nested brick's too:
// 20 µs + 2 µs for 20 µs of wall time, and the summary says so.
TEST(Stats, NestedBricksCountInBothAndTheSummarySaysSo) {
  Trace t = brick_with_a_wait();
  EXPECT_FALSE(summarize_trace(t).nested_bricks);
  add_node(t, {.kind = NodeKind::kBrick,
               .category = Category::kNorm,
               .name = "Inner",
               .parent = 0,
               .thread = 1,
               .start_ns = 10'000,
               .end_ns = 12'000});
  const TraceSummary s = summarize_trace(t);
  EXPECT_TRUE(s.nested_bricks);
  EXPECT_EQ(s.stats.categories[0].total_ns, 22'000);
  EXPECT_EQ(s.stats.brick_total_ns, 22'000);
}

}  // namespace
}  // namespace brickprof::test
