// The fake driver refuses launches where an sm_90 driver would
// (driver_limits.h): block and grid shape, and dynamic shared memory past
// the function's limit, which cuFuncSetAttribute raises up to the device's
// opt-in maximum. Calls the fake libcuda directly, without CUPTI or the
// emulator, and checks the one stderr line that says why.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "fake_cuda.h"
#include "tests/support/read_file.h"

namespace {

// k_plain declares no shared memory; k_static 1 KiB of its own plus a
// module-scope table of 256 bytes that only it names.
const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".extern .shared .align 16 .b8 dynamic_smem[];\n"
    ".shared .align 4 .b8 table[256];\n\n"
    ".visible .entry k_plain(\n\t.param .u32 n\n)\n{\n\tret;\n}\n\n"
    ".visible .entry k_static(\n\t.param .u32 n\n)\n{\n"
    "\t.shared .align 4 .b8 scratch[1024];\n\tmov.u32 %r1, table;\n\tret;\n}\n";
constexpr int kStatic = 1024 + 256;

class DriverLimitsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("FAKE_CUDA_KERNELS");  // book launches only: no parameters needed
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDeviceGet(&device_, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx_, nullptr, 0, device_), CUDA_SUCCESS);
    CUmodule module;
    ASSERT_EQ(cuModuleLoadData(&module, kPtx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&plain_, module, "k_plain"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&with_static_, module, "k_static"), CUDA_SUCCESS);
  }

  static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned smem, CUstream stream = nullptr) {
    return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, stream, nullptr, nullptr);
  }
  // A launch of `f` with this shape and `smem`; its result and what it printed.
  static CUresult launch_said(std::string* err, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                              unsigned bx, unsigned by, unsigned bz, unsigned smem) {
    ::testing::internal::CaptureStderr();
    const CUresult r = launch(f, gx, gy, gz, bx, by, bz, smem);
    *err = ::testing::internal::GetCapturedStderr();
    return r;
  }
  static CUresult set_limit(CUfunction f, int bytes) {
    return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
  }

  static inline CUdevice device_ = 0;
  static inline CUcontext ctx_ = nullptr;
  static inline CUfunction plain_ = nullptr, with_static_ = nullptr;
};

TEST_F(DriverLimitsTest, ReportsSm90Limits) {
  const std::pair<CUdevice_attribute, int> expected[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 49152},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 232448}};
  for (const auto& [attribute, value] : expected) {
    int got = -1;
    EXPECT_EQ(cuDeviceGetAttribute(&got, attribute, device_), CUDA_SUCCESS) << attribute;
    EXPECT_EQ(got, value) << attribute;
  }
}

TEST_F(DriverLimitsTest, BlockShapeIsChecked) {
  std::string err;
  EXPECT_EQ(launch_said(&err, plain_, 1, 1, 1, 1025, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(err, "fake_cuda: cuLaunchKernel k_plain: block.x = 1025 exceeds 1024\n");
  EXPECT_EQ(launch_said(&err, plain_, 1, 1, 1, 64, 4, 5, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(err,
            "fake_cuda: cuLaunchKernel k_plain: block 64x4x5 has 1280 threads, over the 1024 a "
            "block may have\n");
  EXPECT_EQ(launch(plain_, 1, 1, 1, 1, 1, 65, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 0, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 1024, 1, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 32, 32, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 1, 16, 64, 0), CUDA_SUCCESS);
}

TEST_F(DriverLimitsTest, GridShapeIsChecked) {
  std::string err;
  EXPECT_EQ(launch_said(&err, plain_, 1, 65536, 1, 32, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(err, "fake_cuda: cuLaunchKernel k_plain: grid.y = 65536 exceeds 65535\n");
  EXPECT_EQ(launch(plain_, 1, 1, 65536, 32, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(plain_, 2147483648u, 1, 1, 32, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(plain_, 1, 0, 1, 32, 1, 1, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(plain_, 1, 65535, 65535, 32, 1, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(launch(plain_, 2147483647u, 1, 1, 32, 1, 1, 0), CUDA_SUCCESS);
}

// 48 KiB without asking; more only after cuFuncSetAttribute raised the limit.
TEST_F(DriverLimitsTest, DynamicSharedPast48KiBNeedsTheAttribute) {
  CUfunction f = nullptr;  // a function of its own: the attribute sticks
  CUmodule module;
  ASSERT_EQ(cuModuleLoadData(&module, kPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&f, module, "k_plain"), CUDA_SUCCESS);
  std::string err;
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, 48 * 1024), CUDA_SUCCESS);
  EXPECT_EQ(launch_said(&err, f, 1, 1, 1, 256, 1, 1, 49 * 1024), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(err,
            "fake_cuda: cuLaunchKernel k_plain: 50176 bytes of dynamic shared memory exceed the "
            "function's limit of 49152 (static 0; "
            "cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) raises it)\n");
  ASSERT_EQ(set_limit(f, 49 * 1024), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, 49 * 1024), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, 49 * 1024 + 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(set_limit(f, fake_cuda::kSharedPerBlockOptin), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, fake_cuda::kSharedPerBlockOptin), CUDA_SUCCESS);
}

TEST_F(DriverLimitsTest, AttributeAboveTheOptinMaximumIsRefused) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(set_limit(plain_, 232448 + 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "fake_cuda: cuFuncSetAttribute k_plain: 232449 bytes of dynamic shared memory plus 0 "
            "static exceed the device's opt-in maximum of 232448 per block\n");
  // Static shared memory counts against the same maximum.
  EXPECT_EQ(set_limit(with_static_, 232448), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(set_limit(with_static_, 232448 - kStatic), CUDA_SUCCESS);
  EXPECT_EQ(set_limit(plain_, -1), CUDA_ERROR_INVALID_VALUE);
}

// The PTX's .shared declarations (the entry's own and the module-scope ones
// it names) shrink the default limit, as the function attribute's default
// (48 KiB less static) does on a real driver.
TEST_F(DriverLimitsTest, StaticSharedMemoryFromThePtxCounts) {
  CUmodule module;
  CUfunction f = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, kPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&f, module, "k_static"), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, 48 * 1024 - kStatic), CUDA_SUCCESS);
  EXPECT_EQ(launch(f, 1, 1, 1, 256, 1, 1, 48 * 1024 - kStatic + 4), CUDA_ERROR_INVALID_VALUE);
}

// bricklayer's attention kernel keeps 128 bytes of static scratch beside its
// dynamic scores, as nvcc's PTX declares.
TEST_F(DriverLimitsTest, StaticSharedMemoryOfBricklayersPtx) {
  const std::string ptx = brickprof::test::read_file(BRICKLAYER_PTX);
  ASSERT_NE(ptx.find(".entry bl_attention("), std::string::npos);
  CUmodule module;
  CUfunction attention = nullptr, gemv = nullptr;
  ASSERT_EQ(cuModuleLoadData(&module, ptx.c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&attention, module, "bl_attention"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&gemv, module, "bl_gemv_q4k"), CUDA_SUCCESS);
  EXPECT_EQ(launch(attention, 1, 1, 1, 128, 1, 1, 48 * 1024 - 128), CUDA_SUCCESS);
  EXPECT_EQ(launch(attention, 1, 1, 1, 128, 1, 1, 48 * 1024 - 124), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(launch(gemv, 1, 1, 1, 256, 1, 1, 48 * 1024), CUDA_SUCCESS);
}

// A refused launch on a capturing stream fails there, and the capture with it.
TEST_F(DriverLimitsTest, RefusedLaunchInvalidatesTheCapture) {
  CUstream stream;
  ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 32, 1, 1, 0, stream), CUDA_SUCCESS);
  EXPECT_EQ(launch(plain_, 1, 1, 1, 2048, 1, 1, 0, stream), CUDA_ERROR_INVALID_VALUE);
  CUgraph graph;
  EXPECT_EQ(cuStreamEndCapture(stream, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
}

}  // namespace
