// The CUPTI source's pure parts without a GPU: API classification by name,
// parameter layouts checked against the real generated param structs,
// device peaks, the activity buffer pool, library search order.
#include <cuda_runtime_api.h>
#include <cupti.h>  // with the generated API parameter structs
#include <gtest/gtest.h>

#include <cstddef>
#include <utility>

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

// Every memory call, driver and runtime, and each of their variants.
TEST(ApiClass, MemoryCallsByName) {
  const std::pair<const char*, MemoryCall> driver[] = {
      {"cuMemAlloc_v2", MemoryCall::kAlloc},
      {"cuMemAllocPitch_v2", MemoryCall::kAllocPitch},
      {"cuMemFree_v2", MemoryCall::kFree},
      {"cuMemAllocAsync_ptsz", MemoryCall::kAllocAsync},
      {"cuMemAllocFromPoolAsync", MemoryCall::kAllocFromPool},
      {"cuMemFreeAsync_ptsz", MemoryCall::kFreeAsync},
      {"cuMemPoolTrimTo", MemoryCall::kPoolTrim},
      {"cuMemCreate", MemoryCall::kCreate},
      {"cuMemRelease", MemoryCall::kRelease},
      {"cuMemMap", MemoryCall::kMap},
      {"cuMemUnmap", MemoryCall::kUnmap},
      {"cuMemHostAlloc", MemoryCall::kHostAlloc},
      {"cuMemAllocHost_v2", MemoryCall::kAllocHost},
      {"cuMemFreeHost", MemoryCall::kFreeHost},
      {"cuMemHostRegister_v2", MemoryCall::kHostRegister},
      {"cuMemHostUnregister", MemoryCall::kHostUnregister},
      {"cuMemAllocManaged", MemoryCall::kAllocManaged},
  };
  for (const auto& [name, call] : driver) {
    EXPECT_EQ(classify_api(name, false).cls, ApiClass::kMemory) << name;
    EXPECT_EQ(classify_api(name, false).memory, call) << name;
  }
  const std::pair<const char*, MemoryCall> runtime[] = {
      {"cudaMalloc_v3020", MemoryCall::kRtMalloc},
      {"cudaFree_v3020", MemoryCall::kRtFree},
      {"cudaMallocAsync_ptsz_v11020", MemoryCall::kRtMallocAsync},
      {"cudaFreeAsync_v11020", MemoryCall::kRtFreeAsync},
      {"cudaMallocFromPoolAsync_v11020", MemoryCall::kRtMallocFromPoolAsync},
      {"cudaMemPoolTrimTo_v11020", MemoryCall::kRtPoolTrim},
      {"cudaMallocHost_v3020", MemoryCall::kRtMallocHost},
      {"cudaHostAlloc_v3020", MemoryCall::kRtHostAlloc},
      {"cudaFreeHost_v3020", MemoryCall::kRtFreeHost},
      {"cudaHostRegister_v4000", MemoryCall::kRtHostRegister},
      {"cudaHostUnregister_v4000", MemoryCall::kRtHostUnregister},
      {"cudaMallocManaged_v6000", MemoryCall::kRtMallocManaged},
      {"cudaMallocPitch_v3020", MemoryCall::kRtMallocPitch},
  };
  for (const auto& [name, call] : runtime) {
    EXPECT_EQ(classify_api(name, true).cls, ApiClass::kMemory) << name;
    EXPECT_EQ(classify_api(name, true).memory, call) << name;
  }
  // The v1 driver allocator takes a 32-bit size: never read as _v2.
  EXPECT_EQ(classify_api("cuMemAlloc", false).cls, ApiClass::kIgnore);
  EXPECT_EQ(classify_api("cuMemGetInfo_v2", false).cls, ApiClass::kIgnore);
  EXPECT_EQ(classify_api("cuMemcpyHtoD_v2", false).cls, ApiClass::kMemcpy);
}

// What each call did, read from CUDA's own parameter structs at its exit.
TEST(ApiClass, MemoryCallsReadTheirParameters) {
  MemoryCallFacts f;
  CUdeviceptr out = 0x7f0000001000;
  cuMemAlloc_v2_params alloc{&out, 4096};
  ASSERT_TRUE(read_memory_call(MemoryCall::kAlloc, &alloc, true, &f));
  EXPECT_EQ(f.op, MemoryOp::kAlloc);
  EXPECT_EQ(f.source, MemorySource::kDevice);
  EXPECT_EQ(f.address, 0x7f0000001000u);
  EXPECT_EQ(f.bytes, 4096u);
  // Failed: the output was not written, the request is what there is.
  ASSERT_TRUE(read_memory_call(MemoryCall::kAlloc, &alloc, false, &f));
  EXPECT_EQ(f.address, 0u);
  EXPECT_EQ(f.bytes, 4096u);

  size_t pitch = 512;
  cuMemAllocPitch_v2_params pitched{&out, &pitch, 100, 10, 4};
  ASSERT_TRUE(read_memory_call(MemoryCall::kAllocPitch, &pitched, true, &f));
  EXPECT_EQ(f.bytes, 5120u) << "rows padded to the pitch";

  CUstream stream = reinterpret_cast<CUstream>(0x55);
  CUmemoryPool pool = reinterpret_cast<CUmemoryPool>(0x66);
  cuMemAllocFromPoolAsync_params from_pool{&out, 64, pool, stream};
  ASSERT_TRUE(read_memory_call(MemoryCall::kAllocFromPool, &from_pool, true, &f));
  EXPECT_EQ(f.source, MemorySource::kAsync);
  EXPECT_EQ(f.stream, 0x55u);
  EXPECT_EQ(f.pool, 0x66u);
  cuMemFreeAsync_params free_async{out, stream};
  ASSERT_TRUE(read_memory_call(MemoryCall::kFreeAsync, &free_async, true, &f));
  EXPECT_EQ(f.op, MemoryOp::kFree);
  EXPECT_EQ(f.bytes, 0u);
  EXPECT_EQ(f.stream, 0x55u);
  cuMemPoolTrimTo_params trim{pool, 1 << 20};
  ASSERT_TRUE(read_memory_call(MemoryCall::kPoolTrim, &trim, true, &f));
  EXPECT_EQ(f.op, MemoryOp::kTrim);
  EXPECT_EQ(f.bytes, 1u << 20);

  CUmemGenericAllocationHandle handle = 0x1001;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 3};
  cuMemCreate_params create{&handle, 2 << 20, &prop, 0};
  ASSERT_TRUE(read_memory_call(MemoryCall::kCreate, &create, true, &f));
  EXPECT_EQ(f.source, MemorySource::kPhysical);
  EXPECT_EQ(f.address, 0x1001u) << "the handle";
  EXPECT_EQ(f.device, 3);
  cuMemMap_params map{0x7e0000000000, 2 << 20, 0, handle, 0};
  ASSERT_TRUE(read_memory_call(MemoryCall::kMap, &map, true, &f));
  EXPECT_EQ(f.op, MemoryOp::kMap);
  EXPECT_EQ(f.source, MemorySource::kMapping);
  EXPECT_EQ(f.address, 0x7e0000000000u);

  char host[64];
  void* pinned = host;
  cuMemHostAlloc_params host_alloc{&pinned, 64, 0};
  ASSERT_TRUE(read_memory_call(MemoryCall::kHostAlloc, &host_alloc, true, &f));
  EXPECT_TRUE(f.host);
  EXPECT_EQ(f.source, MemorySource::kPinned);
  cuMemHostRegister_v2_params reg{host, 64, 0};
  ASSERT_TRUE(read_memory_call(MemoryCall::kHostRegister, &reg, false, &f));
  EXPECT_EQ(f.address, reinterpret_cast<uint64_t>(host)) << "known even when it failed";

  void* device_ptr = reinterpret_cast<void*>(0x7f0000002000);
  cudaMalloc_v3020_params rt_alloc{&device_ptr, 128};
  ASSERT_TRUE(read_memory_call(MemoryCall::kRtMalloc, &rt_alloc, true, &f));
  EXPECT_EQ(f.address, 0x7f0000002000u);
  cudaFree_v3020_params rt_free_null{nullptr};
  EXPECT_FALSE(read_memory_call(MemoryCall::kRtFree, &rt_free_null, true, &f))
      << "cudaFree(0) frees nothing";
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
