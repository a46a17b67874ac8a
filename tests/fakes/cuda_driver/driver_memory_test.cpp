// The fake driver's memory (driver_memory.cpp) answers as the driver API
// reference says: a device of FAKE_CUDA_DEVICE_MEMORY bytes refuses what
// does not fit with CUDA_ERROR_OUT_OF_MEMORY and takes it once memory is
// freed; pools keep their reserve until a sync or a trim; VMM memory is
// counted from cuMemCreate until it is released and unmapped; host memory
// is real and not counted on the device. Calls the fake libcuda directly.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fake_cuda.h"

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kDevice = 1024 * kMiB;  // FAKE_CUDA_DEVICE_MEMORY for this test

class DriverMemoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    unsetenv("FAKE_CUDA_KERNELS");
    setenv(fake_cuda::kEnvDeviceMemory, std::to_string(kDevice).c_str(), 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDeviceGet(&device_, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx_, nullptr, 0, device_), CUDA_SUCCESS);
  }
  static uint64_t free_bytes() {
    size_t free = 0, total = 0;
    EXPECT_EQ(cuMemGetInfo(&free, &total), CUDA_SUCCESS);
    EXPECT_EQ(total, kDevice);
    return free;
  }
  void TearDown() override { EXPECT_EQ(free_bytes(), kDevice) << "a test left memory held"; }

  static inline CUdevice device_ = 0;
  static inline CUcontext ctx_ = nullptr;
};

TEST_F(DriverMemoryTest, TotalMemoryIsTheConfiguredSize) {
  size_t total = 0;
  ASSERT_EQ(cuDeviceTotalMem(&total, device_), CUDA_SUCCESS);
  EXPECT_EQ(total, kDevice);
  EXPECT_EQ(cuDeviceTotalMem(&total, 7), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(DriverMemoryTest, RefusesWhatDoesNotFitAndTakesItOnceFreed) {
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cuMemAlloc(&a, 768 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 768 * kMiB);
  EXPECT_EQ(cuMemAlloc(&b, 512 * kMiB), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuMemAlloc(&b, 1ull << 50), CUDA_ERROR_OUT_OF_MEMORY);  // 1 PiB
  EXPECT_EQ(free_bytes(), kDevice - 768 * kMiB) << "a refusal holds nothing";
  ASSERT_EQ(cuMemFree(a), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&b, 512 * kMiB), CUDA_SUCCESS);
  EXPECT_NE(a, b);
  EXPECT_EQ(cuMemFree(b), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(b), CUDA_ERROR_INVALID_VALUE) << "a second free";
  EXPECT_EQ(cuMemFree(0x1234), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(DriverMemoryTest, CountsInTheDriversGranules) {
  CUdeviceptr a = 0;
  ASSERT_EQ(cuMemAlloc(&a, 1), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 256);
  EXPECT_EQ(cuMemFree(a), CUDA_SUCCESS);
  size_t pitch = 0;
  EXPECT_EQ(cuMemAllocPitch(&a, &pitch, 100, 10, 3), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAllocPitch(&a, &pitch, 100, 10, 4), CUDA_SUCCESS);
  EXPECT_GE(pitch, 100u);
  EXPECT_EQ(free_bytes(), kDevice - (pitch * 10 + 255) / 256 * 256);
  EXPECT_EQ(cuMemFree(a), CUDA_SUCCESS);
}

TEST_F(DriverMemoryTest, PoolsKeepTheirReserveUntilASyncOrATrim) {
  CUmemoryPool pool = nullptr;
  ASSERT_EQ(cuDeviceGetDefaultMemPool(&pool, device_), CUDA_SUCCESS);
  CUstream stream = nullptr;
  ASSERT_EQ(cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  CUdeviceptr a = 0;
  ASSERT_EQ(cuMemAllocAsync(&a, 3 * kMiB, stream), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB) << "reserved in 2 MiB granules";
  ASSERT_EQ(cuMemFreeAsync(a, stream), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB) << "the pool keeps its reserve";
  EXPECT_EQ(cuMemFreeAsync(a, stream), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAllocAsync(&a, 3 * kMiB, stream), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB) << "served from the reserve";
  EXPECT_EQ(cuMemAllocAsync(&a, kDevice, stream), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cuMemFreeAsync(a, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);  // release threshold 0
  EXPECT_EQ(free_bytes(), kDevice);

  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  CUmemoryPool mine = nullptr;
  ASSERT_EQ(cuMemPoolCreate(&mine, &props), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&a, 8 * kMiB, mine, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeAsync(a, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemPoolTrimTo(mine, 4 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB);
  ASSERT_EQ(cuMemPoolTrimTo(mine, 0), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice);
  ASSERT_EQ(cuMemAllocFromPoolAsync(&a, 2 * kMiB, mine, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemPoolDestroy(mine), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 2 * kMiB) << "outstanding allocations outlive the pool";
  ASSERT_EQ(cuMemFree(a), CUDA_SUCCESS) << "cuMemFree takes a pool's allocation";
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE) << "the default pool stays";
  EXPECT_EQ(cuStreamDestroy(stream), CUDA_SUCCESS);
}

TEST_F(DriverMemoryTest, VirtualMemoryIsCountedFromCreateUntilReleasedAndUnmapped) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  size_t granularity = 0;
  ASSERT_EQ(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
            CUDA_SUCCESS);
  ASSERT_EQ(granularity, 2 * kMiB);
  CUdeviceptr va = 0;
  ASSERT_EQ(cuMemAddressReserve(&va, 8 * kMiB, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice) << "a reservation is no memory";
  CUmemGenericAllocationHandle h = 0;
  EXPECT_EQ(cuMemCreate(&h, kMiB, &prop, 0), CUDA_ERROR_INVALID_VALUE) << "not a granule multiple";
  EXPECT_EQ(cuMemCreate(&h, 2 * kDevice, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cuMemCreate(&h, 4 * kMiB, &prop, 0), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB);
  EXPECT_EQ(cuMemSetAccess(va, 4 * kMiB, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  EXPECT_EQ(cuMemSetAccess(va, 4 * kMiB, &access, 1), CUDA_ERROR_INVALID_VALUE) << "not mapped";
  EXPECT_EQ(cuMemMap(va + 6 * kMiB, 4 * kMiB, 0, h, 0), CUDA_ERROR_INVALID_VALUE) << "past it";
  ASSERT_EQ(cuMemMap(va, 4 * kMiB, 0, h, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemSetAccess(va, 4 * kMiB, &access, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice - 4 * kMiB) << "still mapped";
  EXPECT_EQ(cuMemUnmap(va, 2 * kMiB), CUDA_ERROR_INVALID_VALUE) << "a part of a mapping";
  ASSERT_EQ(cuMemUnmap(va, 4 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes(), kDevice);
  EXPECT_EQ(cuMemAddressFree(va, 4 * kMiB), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAddressFree(va, 8 * kMiB), CUDA_SUCCESS);
}

TEST_F(DriverMemoryTest, HostMemoryIsRealAndNotOnTheDevice) {
  void* pinned = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&pinned, kDevice + kMiB, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
  std::memset(pinned, 1, 4096);
  void* more = nullptr;
  ASSERT_EQ(cuMemAllocHost(&more, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostAlloc(&more, 4096, 0x80), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(free_bytes(), kDevice);
  EXPECT_EQ(cuMemFree(reinterpret_cast<CUdeviceptr>(more)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeHost(more), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(pinned), CUDA_ERROR_INVALID_VALUE);

  static char buffer[8192];
  ASSERT_EQ(cuMemHostRegister(buffer, 4096, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostRegister(buffer + 100, 100, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  EXPECT_EQ(cuMemHostUnregister(buffer + 100), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(cuMemHostUnregister(buffer), CUDA_SUCCESS);

  CUdeviceptr managed = 0;
  EXPECT_EQ(cuMemAllocManaged(&managed, 4096, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAllocManaged(&managed, kDevice + kMiB, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS)
      << "managed memory may oversubscribe the device";
  std::memset(reinterpret_cast<void*>(managed), 2, 4096);
  EXPECT_EQ(free_bytes(), kDevice);
  EXPECT_EQ(cuMemFree(managed), CUDA_SUCCESS);
}

}  // namespace
