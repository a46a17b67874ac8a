// The CUPTI source's pure parts without a GPU: API classification by name,
// parameter layouts checked against the real generated param structs,
// device peaks, the activity buffer pool, library search order.
#include <cupti.h>  // with the generated API parameter structs
#include <gtest/gtest.h>

#include <cstddef>

#include "agent/cupti/activity.h"
#include "agent/cupti/api_class.h"
#include "agent/cupti/devices.h"
#include "agent/cupti/libraries.h"

namespace brickprof::agent {
namespace {

TEST(ApiClass, NormalizesVariants) {
  EXPECT_EQ(normalize_api_name("cudaMemcpyAsync_ptsz_v7000", true), "cudaMemcpyAsync");
  EXPECT_EQ(normalize_api_name("cudaLaunchKernel_v7000", true), "cudaLaunchKernel");
  EXPECT_EQ(normalize_api_name("cudaLaunchKernelExC_v11060", true), "cudaLaunchKernelExC");
  EXPECT_EQ(normalize_api_name("cuMemcpyHtoD_v2_ptds", false), "cuMemcpyHtoD_v2");
  EXPECT_EQ(normalize_api_name("cuLaunchKernel_ptsz", false), "cuLaunchKernel");
  EXPECT_EQ(normalize_api_name("cudaMemcpy", true), "cudaMemcpy");
  EXPECT_EQ(normalize_api_name("__cudaLaunchKernel_ptsz_v13000", true), "cudaLaunchKernel");
}

TEST(ApiClass, EveryLaunchCopySyncVariant) {
  for (const char* n : {"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
                        "cuLaunchCooperativeKernel", "cuLaunchCooperativeKernelMultiDevice"})
    EXPECT_EQ(classify_api(n, false).cls, ApiClass::kLaunch) << n;
  for (const char* n : {"cudaLaunchKernel_v7000", "cudaLaunchKernelExC_v11060",
                        "cudaLaunchCooperativeKernel_ptsz_v9000", "__cudaLaunchKernel_v13000"})
    EXPECT_EQ(classify_api(n, true).cls, ApiClass::kLaunch) << n;
  EXPECT_EQ(classify_api("cuGraphLaunch_ptsz", false).cls, ApiClass::kGraphLaunch);
  EXPECT_EQ(classify_api("cudaGraphLaunch_v10000", true).cls, ApiClass::kGraphLaunch);
  for (const char* n : {"cuStreamBeginCapture_v2", "cuStreamBeginCapture_ptsz",
                        "cuStreamBeginCaptureToGraph"})
    EXPECT_EQ(classify_api(n, false).cls, ApiClass::kCaptureBegin) << n;
  EXPECT_EQ(classify_api("cudaStreamBeginCapture_v10000", true).cls, ApiClass::kCaptureBegin);
  EXPECT_EQ(classify_api("cuStreamEndCapture_ptsz", false).cls, ApiClass::kCaptureEnd);
  EXPECT_EQ(classify_api("cudaStreamEndCapture_v10000", true).cls, ApiClass::kCaptureEnd);
  EXPECT_EQ(classify_api("cuMemcpy3DPeerAsync", false).cls, ApiClass::kMemcpy);
  EXPECT_EQ(classify_api("cuMemcpy3DPeerAsync", false).layout, ParamLayout::kNone);
  EXPECT_EQ(classify_api("cudaMemset2DAsync_v3020", true).cls, ApiClass::kMemset);
  EXPECT_EQ(classify_api("cuCtxSynchronize", false).cls, ApiClass::kSync);
  EXPECT_EQ(classify_api("cudaDeviceSynchronize_v3020", true).cls, ApiClass::kSync);
  EXPECT_EQ(classify_api("cuStreamWaitEvent_ptsz", false).cls, ApiClass::kStreamWait);
  EXPECT_EQ(classify_api("cuEventRecordWithFlags", false).cls, ApiClass::kEventRecord);
  EXPECT_EQ(classify_api("cuModuleLoadDataEx", false).cls, ApiClass::kModuleLoad);
  EXPECT_EQ(classify_api("cuLibraryLoadData", false).layout, ParamLayout::kImageSecond);
  EXPECT_EQ(classify_api("cuDevicePrimaryCtxReset_v2", false).cls, ApiClass::kReset);
  EXPECT_EQ(classify_api("cudaDeviceReset_v3020", true).cls, ApiClass::kReset);
  EXPECT_EQ(classify_api("cuCtxGetCurrent", false).cls, ApiClass::kIgnore);
  EXPECT_EQ(classify_api("cudaGetLastError_v3020", true).cls, ApiClass::kIgnore);
  // v1 driver copies take 32-bit sizes: never read their params as _v2.
  EXPECT_EQ(classify_api("cuMemcpyHtoD", false).layout, ParamLayout::kNone);
}

// The offsets read_param_range assumes, checked against CUDA's own structs.
TEST(ApiClass, ParamLayoutsMatchGeneratedStructs) {
  static_assert(offsetof(cuMemcpyHtoD_v2_params, dstDevice) == 0);
  static_assert(offsetof(cuMemcpyHtoD_v2_params, srcHost) == 8);
  static_assert(offsetof(cuMemcpyHtoD_v2_params, ByteCount) == 16);
  static_assert(offsetof(cuMemcpyDtoHAsync_v2_params, ByteCount) == 16);
  static_assert(offsetof(cuMemcpyAsync_params, ByteCount) == 16);
  static_assert(offsetof(cudaMemcpy_v3020_params, count) == 16);
  static_assert(offsetof(cudaMemcpyAsync_v3020_params, src) == 8);
  static_assert(offsetof(cuMemcpyPeer_params, srcDevice) == 16);
  static_assert(offsetof(cuMemcpyPeer_params, ByteCount) == 32);
  static_assert(offsetof(cudaMemcpyPeer_v4000_params, src) == 16);
  static_assert(offsetof(cudaMemcpyPeer_v4000_params, count) == 32);
  static_assert(offsetof(cuMemsetD32Async_params, N) == 16);
  static_assert(offsetof(cudaMemset_v3020_params, count) == 16);
  static_assert(offsetof(cuModuleLoadData_params, image) == 8);
  static_assert(offsetof(cuModuleLoadFatBinary_params, fatCubin) == 8);
  static_assert(offsetof(cuLibraryLoadData_params, code) == 8);

  cudaMemcpy_v3020_params rt{reinterpret_cast<void*>(0x1000), reinterpret_cast<void*>(0x2000),
                             4096, cudaMemcpyHostToDevice};
  ParamRange r;
  ASSERT_TRUE(read_param_range(classify_api("cudaMemcpy_v3020", true), &rt, &r));
  EXPECT_EQ(r.dst, 0x1000u);
  EXPECT_EQ(r.src, 0x2000u);
  EXPECT_EQ(r.bytes, 4096u);
  cuMemsetD32Async_params ms{0x3000, 7, 100, nullptr};
  ASSERT_TRUE(read_param_range(classify_api("cuMemsetD32Async_ptsz", false), &ms, &r));
  EXPECT_EQ(r.dst, 0x3000u);
  EXPECT_EQ(r.bytes, 400u);
  cuMemcpyPeer_params peer{0x10, nullptr, 0x20, nullptr, 64};
  ASSERT_TRUE(read_param_range(classify_api("cuMemcpyPeer", false), &peer, &r));
  EXPECT_EQ(r.src, 0x20u);
  EXPECT_EQ(r.bytes, 64u);
  int image = 0;
  cuModuleLoadData_params ml{nullptr, &image};
  EXPECT_EQ(read_param_image(classify_api("cuModuleLoadData", false), &ml), &image);
}

TEST(Devices, PeaksFromAttributes) {
  DeviceAttributes h100;  // H100 SXM: 132 SMs, 1980 MHz boost, HBM3 5120-bit @ 2619 MHz
  h100.name = "NVIDIA H100";
  h100.sm_count = 132;
  h100.clock_khz = 1980000;
  h100.memory_clock_khz = 2619000;
  h100.bus_width_bits = 5120;
  h100.cc_major = 9;
  Device d = make_device(h100, std::nullopt, std::nullopt);
  EXPECT_NEAR(d.peak_gflops, 132 * 128 * 2 * 1.98, 1e-6);  // ~66.9 TFLOP/s FP32
  EXPECT_NEAR(d.peak_gbps, 2 * 2.619e9 * 5120 / 8 / 1e9, 1e-6);  // ~3352 GB/s
  EXPECT_EQ(d.peaks_source, "device attributes");
  EXPECT_EQ(d.sm_count, 132u);
  EXPECT_DOUBLE_EQ(d.clock_mhz, 1980.0);
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);  // A100
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
}

TEST(Devices, Overrides) {
  DeviceAttributes a;
  a.sm_count = 10;
  a.clock_khz = 1000000;
  a.cc_major = 9;
  Device d = make_device(a, 1234.5, std::nullopt);
  EXPECT_DOUBLE_EQ(d.peak_gflops, 1234.5);
  // The bandwidth still comes from the device, and the label says so.
  EXPECT_EQ(d.peaks_source, "FLOP/s override; bandwidth device attributes");
  d = make_device(a, 1234.5, 3000);
  EXPECT_DOUBLE_EQ(d.peak_gbps, 3000);
  EXPECT_EQ(d.peaks_source, "override");
}

TEST(ActivityPool, FixedBuffersNoGrowth) {
  BufferPool pool(3, 4096);
  uint8_t* a = pool.take();
  uint8_t* b = pool.take();
  uint8_t* c = pool.take();
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);
  EXPECT_EQ(pool.take(), nullptr);  // empty: CUPTI gets nothing, drop counted
  pool.give_back(b);
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(pool.take(), b);
  EXPECT_EQ(activity_buffer_count(256ull << 20), 8u);
  EXPECT_EQ(activity_buffer_count(1ull << 20), 4u);
  EXPECT_EQ(activity_buffer_count(1ull << 40), 64u);
  // A thirty-second of the cap each, within 64 KiB..4 MiB.
  EXPECT_EQ(activity_buffer_bytes(256ull << 20), 4u << 20);
  EXPECT_EQ(activity_buffer_bytes(1ull << 20), 64u << 10);
  EXPECT_EQ(activity_buffer_bytes(16ull << 20), 512u << 10);
}

uint64_t g_pool_allowance = 0;
bool take_pool(uint64_t bytes) {
  if (bytes > g_pool_allowance) return false;
  g_pool_allowance -= bytes;
  return true;
}
void give_pool(uint64_t bytes) { g_pool_allowance += bytes; }

TEST(ActivityPool, BuffersAreChargedToTheBudget) {
  g_pool_allowance = 2 * 4096 + 100;
  {
    BufferPool pool(4, 4096, {take_pool, give_pool});
    EXPECT_EQ(pool.count(), 2u);  // what the budget allowed
    EXPECT_EQ(g_pool_allowance, 100u);
  }
  EXPECT_EQ(g_pool_allowance, 2 * 4096 + 100u);  // given back with the pool
}

TEST(Libraries, CuptiSearchOrder) {
  auto paths = cupti_candidates("/opt/cuda");
  ASSERT_GE(paths.size(), 6u);
  EXPECT_EQ(paths[0], "libcupti.so");
  EXPECT_EQ(paths[1], "libcupti.so.13");
  EXPECT_EQ(paths[2], "libcupti.so.12");
  EXPECT_EQ(paths[3], "/opt/cuda/lib64/libcupti.so");
  EXPECT_EQ(paths.back(), "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
}

}  // namespace
}  // namespace brickprof::agent
