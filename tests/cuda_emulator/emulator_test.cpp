// The emulator's execution model: indices, barriers, shuffles, shared
// memory, and the bugs it reports instead of computing garbage.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "emulator_api.h"
#include "kernel_table.h"
#include "test_kernels.cu"

namespace cuda_emulator {

std::span<const KernelEntry> kernel_table() {
  static const KernelEntry kernels[] = {
      CUDA_EMULATOR_KERNEL(block_sum),
      CUDA_EMULATOR_KERNEL(coordinates),
      CUDA_EMULATOR_KERNEL(barrier_in_both_branches),
      CUDA_EMULATOR_KERNEL(barrier_against_shuffle),
      CUDA_EMULATOR_KERNEL(shuffle_after_return),
      CUDA_EMULATOR_KERNEL(read_shared_before_write),
      CUDA_EMULATOR_KERNEL(write_past_shared),
      CUDA_EMULATOR_KERNEL(exit_early_then_barrier),
  };
  return kernels;
}

namespace {

// Launches through the C entry points, as the fake driver does.
template <typename... Args>
std::string run(const char* kernel, Dim3 grid, Dim3 block, unsigned shared, Args... args) {
  void* params[] = {static_cast<void*>(&args)..., nullptr};
  char error[512] = "";
  const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  return cuda_emulator_launch(kernel, g, b, shared, params, error, sizeof error) == 0 ? ""
                                                                                      : error;
}

TEST(Emulator, BlockReductionWithShufflesAndSharedMemory) {
  const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
  std::vector<float> x(n), out(blocks);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7) - 2.5f;
  ASSERT_EQ(run("block_sum", {blocks}, {threads}, threads * 4, x.data(), out.data(), n), "");
  for (int b = 0; b < blocks; ++b) {
    float expected = 0;
    for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i) expected += x[i];
    EXPECT_FLOAT_EQ(out[b], expected) << "block " << b;
  }
}

TEST(Emulator, EveryThreadOfA3DGridRunsOnceWithItsIndices) {
  const Dim3 grid{3, 2, 2}, block{4, 2, 3};
  const unsigned per_block = 24, total = 12 * per_block;
  std::vector<uint32_t> out(total, 0xdeadbeef);
  ASSERT_EQ(run("coordinates", grid, block, 0, out.data()), "");
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 3; ++tz)
          for (unsigned ty = 0; ty < 2; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx) {
              const unsigned at = (bx + 3 * (by + 2 * bz)) * per_block + tx + 4 * (ty + 2 * tz);
              EXPECT_EQ(out[at], (bz << 24) | (by << 16) | (bx << 8) | (tz << 6) | (ty << 4) | tx);
            }
}

TEST(Emulator, ThreadsThatReturnDoNotHoldABarrier) {
  std::vector<float> out(64, 0);
  ASSERT_EQ(run("exit_early_then_barrier", {1}, {64}, 0, out.data()), "");
  EXPECT_EQ(out[39], 3);
  EXPECT_EQ(out[40], 0);
}

TEST(Emulator, ReportsBarriersInDivergentCode) {
  std::vector<float> out(32);
  const std::string error = run("barrier_in_both_branches", {1}, {32}, 0, out.data());
  EXPECT_NE(error.find("barrier_in_both_branches: block (0,0,0) thread ("), std::string::npos)
      << error;
  EXPECT_NE(error.find("different __syncthreads"), std::string::npos) << error;
}

TEST(Emulator, ReportsADeadlockBetweenABarrierAndAShuffle) {
  std::vector<float> out(32);
  const std::string error = run("barrier_against_shuffle", {1}, {32}, 0, out.data());
  EXPECT_NE(error.find("deadlock: 1 threads wait at __syncthreads, 31 at a warp shuffle"),
            std::string::npos)
      << error;
}

TEST(Emulator, ReportsAShuffleWithLanesThatReturned) {
  std::vector<float> out(32);
  const std::string error = run("shuffle_after_return", {1}, {32}, 0, out.data());
  EXPECT_NE(error.find("31 live lanes"), std::string::npos) << error;
}

TEST(Emulator, SharedMemoryStartsAsNaN) {
  std::vector<float> out(32, 0);
  ASSERT_EQ(run("read_shared_before_write", {1}, {32}, 32 * 4, out.data()), "");
  for (float v : out) EXPECT_TRUE(std::isnan(v));
}

TEST(Emulator, WritingPastSharedMemoryFaults) {
  EXPECT_EQ(run("write_past_shared", {1}, {32}, 1000 * 4, 1000), "");
  EXPECT_DEATH(run("write_past_shared", {1}, {32}, 1000 * 4, 1000 + 1024), "");
}

TEST(Emulator, RejectsUnknownKernelsAndBadShapes) {
  EXPECT_NE(run("no_such_kernel", {1}, {32}, 0).find("no emulated version"), std::string::npos);
  std::vector<uint32_t> out(2048);
  EXPECT_NE(run("coordinates", {1}, {2048}, 0, out.data()).find("1 to 1024"), std::string::npos);
  size_t sizes[kMaxParams];
  EXPECT_EQ(cuda_emulator_param_sizes("block_sum", sizes, kMaxParams), 3);
  EXPECT_EQ(sizes[0], sizeof(const float*));
  EXPECT_EQ(sizes[2], sizeof(int));
  EXPECT_EQ(cuda_emulator_param_sizes("no_such_kernel", sizes, kMaxParams), -1);
}

}  // namespace
}  // namespace cuda_emulator
