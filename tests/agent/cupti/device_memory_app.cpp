// A driver-API program that allocates as device_memory_app.h says, on the
// fake driver, with scopes around each part; it lists every memory call it
// makes (and what came back) so the test can hold the trace to it.
#include "device_memory_app.h"

#include <brickprof/brickprof.h>
#include <cuda.h>
#include <signal.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "../../fakes/cuda_driver/check_call.h"

using namespace device_memory_app;

namespace {

FILE* g_truth = nullptr;

// One line of the list, written at once (the program may die next): api
// op source address bytes result scope (the rest of the line).
CUresult noted(CUresult r, const char* api, const char* op, const char* source, uint64_t address,
               uint64_t bytes, const std::string& scope) {
  std::fprintf(g_truth, "%s %s %s %" PRIu64 " %" PRIu64 " %d %s\n", api, op, source, address,
               bytes, static_cast<int>(r), scope.c_str());
  std::fflush(g_truth);
  return r;
}

uint64_t u64(const void* p) { return reinterpret_cast<uint64_t>(p); }

char g_registered[kRegisteredBytes];

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const char* end = argv[1];
  g_truth = std::fopen(argv[2], "w");
  if (g_truth == nullptr) return 2;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, nullptr, 0, device));

  void* pinned = nullptr;
  {
    BRICKPROF_SCOPE("host_buffers");
    CHECK(cuMemHostAlloc(&pinned, kPinnedBytes, CU_MEMHOSTALLOC_PORTABLE));
    noted(CUDA_SUCCESS, "cuMemHostAlloc", "alloc", "pinned", u64(pinned), kPinnedBytes,
          "host_buffers");
    std::memset(pinned, 1, kPinnedBytes);
    CHECK(cuMemHostRegister(g_registered, kRegisteredBytes, 0));
    noted(CUDA_SUCCESS, "cuMemHostRegister_v2", "alloc", "registered", u64(g_registered),
          kRegisteredBytes, "host_buffers");
  }

  CUdeviceptr weights[kLayers];
  for (int i = 0; i < kLayers; ++i) {
    BRICKPROF_LAYER(i);
    CHECK(cuMemAlloc(&weights[i], weight_bytes(i)));
    noted(CUDA_SUCCESS, "cuMemAlloc_v2", "alloc", "device", weights[i], weight_bytes(i),
          "Layer " + std::to_string(i));
  }

  CUstream stream;
  CHECK(cuStreamCreate(&stream, 0));
  for (int step = 0; step < kSteps; ++step) {
    BRICKPROF_SCOPE("decode_step");
    {
      BRICKPROF_SCOPE("attention");
      CUdeviceptr activation;
      CHECK(cuMemAllocAsync(&activation, kActivationBytes, stream));
      noted(CUDA_SUCCESS, "cuMemAllocAsync", "alloc", "async", activation, kActivationBytes,
            kAttentionScope);
      CHECK(cuMemFreeAsync(activation, stream));
      noted(CUDA_SUCCESS, "cuMemFreeAsync", "free", "async", activation, 0, kAttentionScope);
    }
    {
      BRICKPROF_SCOPE("kv_append");
      CUdeviceptr leaked;
      CHECK(cuMemAlloc(&leaked, kLeakBytes));
      noted(CUDA_SUCCESS, "cuMemAlloc_v2", "alloc", "device", leaked, kLeakBytes, kLeakScope);
    }
    CHECK(cuStreamSynchronize(stream));
  }

  {
    BRICKPROF_SCOPE("vmm");
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CUdeviceptr va;
    CHECK(cuMemAddressReserve(&va, kReserveBytes, 0, 0, 0));
    CUmemGenericAllocationHandle handle;
    CHECK(cuMemCreate(&handle, kPhysicalBytes, &prop, 0));
    noted(CUDA_SUCCESS, "cuMemCreate", "alloc", "physical", handle, kPhysicalBytes, "vmm");
    CHECK(cuMemMap(va, kPhysicalBytes, 0, handle, 0));
    noted(CUDA_SUCCESS, "cuMemMap", "map", "mapping", va, kPhysicalBytes, "vmm");
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(va, kPhysicalBytes, &access, 1));
    CHECK(cuMemUnmap(va, kPhysicalBytes));
    noted(CUDA_SUCCESS, "cuMemUnmap", "unmap", "mapping", va, 0, "vmm");
    CHECK(cuMemRelease(handle));
    noted(CUDA_SUCCESS, "cuMemRelease", "free", "physical", handle, 0, "vmm");
    CHECK(cuMemAddressFree(va, kReserveBytes));
  }

  {
    BRICKPROF_SCOPE("managed");
    CUdeviceptr managed;
    CHECK(cuMemAllocManaged(&managed, kManagedBytes, CU_MEM_ATTACH_GLOBAL));
    noted(CUDA_SUCCESS, "cuMemAllocManaged", "alloc", "managed", managed, kManagedBytes,
          "managed");
    std::memset(reinterpret_cast<void*>(managed), 2, kManagedBytes);
    CHECK(cuMemFree(managed));
    noted(CUDA_SUCCESS, "cuMemFree_v2", "free", "device", managed, 0, "managed");
  }

  {
    BRICKPROF_SCOPE("too_big");
    size_t total = 0;
    CHECK(cuDeviceTotalMem(&total, device));
    CUdeviceptr never = 0;
    const CUresult r = cuMemAlloc(&never, total);
    noted(r, "cuMemAlloc_v2", "alloc", "device", 0, total, kOomScope);
    if (r != CUDA_ERROR_OUT_OF_MEMORY) {
      std::fprintf(stderr, "expected CUDA_ERROR_OUT_OF_MEMORY, got %d\n", static_cast<int>(r));
      return 1;
    }
  }
  std::printf("%s", kStdout);
  std::fflush(stdout);
  if (std::strcmp(end, kUnderscoreExit) == 0) _exit(3);
  if (std::strcmp(end, kKill) == 0) raise(SIGKILL);

  // Outside every scope.
  for (int i = 0; i < kLayers; ++i) {
    CHECK(cuMemFree(weights[i]));
    noted(CUDA_SUCCESS, "cuMemFree_v2", "free", "device", weights[i], 0, "-");
  }
  CHECK(cuMemHostUnregister(g_registered));
  noted(CUDA_SUCCESS, "cuMemHostUnregister", "free", "registered", u64(g_registered), 0, "-");
  CHECK(cuMemFreeHost(pinned));
  noted(CUDA_SUCCESS, "cuMemFreeHost", "free", "pinned", u64(pinned), 0, "-");
  CHECK(cuStreamDestroy(stream));
  CHECK(cuCtxDestroy(ctx));
  std::fclose(g_truth);
  return 0;
}
