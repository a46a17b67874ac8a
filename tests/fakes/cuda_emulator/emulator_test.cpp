// The emulator's execution model: indices, barriers, shuffles, shared
// memory, and the bugs it reports instead of computing garbage.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "emulator_api.h"
#include "kernel_table.h"

namespace cuda_emulator {

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
  EXPECT_NE(error.find("test_kernels.cu:"), std::string::npos) << error;  // names both lines
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

TEST(Emulator, StaticSharedMemoryStartsAsNaNInEveryBlock) {
  std::vector<float> out(64, 0);
  ASSERT_EQ(run("read_static_shared", {2}, {32}, 0, out.data()), "");
  EXPECT_EQ(out[0], 1);
  EXPECT_TRUE(std::isnan(out[32]));  // block 1 never wrote its copy
}

TEST(Emulator, ReportsAReadOfSharedMemoryAnotherThreadWroteWithoutABarrier) {
  std::vector<float> out(64);
  const std::string error = run("read_neighbour_without_barrier", {1}, {64}, 64 * 4, out.data());
  // Thread 0 runs first and reads word 1 before thread 1 writes it.
  EXPECT_NE(error.find("block (0,0,0) thread (1,0,0): data race: writes dynamic shared memory "
                       "(byte 4) that thread (0,0,0) read with no __syncthreads between"),
            std::string::npos)
      << error;
}

TEST(Emulator, ReportsAWriteOverWhatOtherThreadsStillRead) {
  std::vector<float> out(128);
  EXPECT_EQ(run("reuse_scratch_without_barrier", {1}, {128}, 0, out.data(), 1), "");
  EXPECT_EQ(out[5], 4 * 1 + 4 * 2);
  const std::string error = run("reuse_scratch_without_barrier", {1}, {128}, 0, out.data(), 0);
  EXPECT_NE(error.find("data race: writes static shared memory"), std::string::npos) << error;
  EXPECT_NE(error.find("missing barrier"), std::string::npos) << error;
}

TEST(Emulator, ReportsTwoBlocksWritingOneWord) {
  std::vector<float> out(1);
  const std::string error = run("every_block_writes_one_word", {3}, {32}, 0, out.data());
  EXPECT_NE(error.find("block (1,0,0) thread (0,0,0): data race: writes global memory at 0x"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("that block (0,0,0) thread (0,0,0) wrote (blocks of one launch are not "
                       "ordered)"),
            std::string::npos)
      << error;
  // One block alone is fine, and so is the next launch: races are per launch.
  EXPECT_EQ(run("every_block_writes_one_word", {1}, {32}, 0, out.data()), "");
  EXPECT_EQ(run("every_block_writes_one_word", {1}, {32}, 0, out.data()), "");
}

TEST(Emulator, AtomicsDoNotRace) {
  std::vector<float> out(1, 0);
  ASSERT_EQ(run("count_with_atomics", {4}, {64}, 0, out.data()), "");
  EXPECT_EQ(out[0], 256);
}

TEST(Emulator, ReportsAMisalignedVectorLoad) {
  alignas(16) float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> out(32);
  ASSERT_EQ(run("load_float4_at", {1}, {32}, 0, &x[0], 4, out.data()), "");
  EXPECT_EQ(out[0], 5 + 6 + 7 + 8);
  const std::string error = run("load_float4_at", {1}, {32}, 0, &x[0], 1, out.data());
  EXPECT_NE(error.find("block (0,0,0) thread (0,0,0): misaligned address 0x"), std::string::npos)
      << error;
  EXPECT_NE(error.find("float4' needs 16-byte alignment ("), std::string::npos) << error;
  EXPECT_NE(error.find("test_kernels.cu:"), std::string::npos) << error;
}

TEST(Emulator, ReportsAccessesOutsideTrackedDeviceMemory) {
  alignas(16) float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> out(32);
  cuda_emulator_track_allocation(x, sizeof x);
  cuda_emulator_track_allocation(out.data(), out.size() * 4);
  EXPECT_EQ(run("load_float4_at", {1}, {32}, 0, &x[0], 4, out.data()), "");
  const std::string past_end = run("load_float4_at", {1}, {32}, 0, &x[0], 8, out.data());
  EXPECT_NE(past_end.find("thread (0,0,0): out of bounds: reads "), std::string::npos) << past_end;
  EXPECT_NE(past_end.find("lies 0 bytes past the end of the 32-byte allocation at 0x"),
            std::string::npos)
      << past_end;
  cuda_emulator_forget_allocation(x);
  const std::string freed = run("load_float4_at", {1}, {32}, 0, &x[0], 0, out.data());
  EXPECT_NE(freed.find("out of bounds, or freed"), std::string::npos) << freed;
  cuda_emulator_forget_allocation(out.data());  // none live: host buffers again
  EXPECT_EQ(run("load_float4_at", {1}, {32}, 0, &x[0], 0, out.data()), "");
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
