// The CUDA calls that allocate, free, map or trim memory: which they are
// (by name, once per callback id) and what each did, read at the call's
// exit from the generated `*_params` struct CUPTI passes
// (<generated_cuda_meta.h>, <generated_cuda_runtime_api_meta.h>).
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/model/memory.h"

namespace brickprof::agent {

enum class MemoryCall : uint8_t {
  kNone,
  // driver
  kAlloc,          // cuMemAlloc_v2
  kAllocPitch,     // cuMemAllocPitch_v2
  kAllocManaged,   // cuMemAllocManaged
  kFree,           // cuMemFree_v2
  kAllocAsync,     // cuMemAllocAsync
  kAllocFromPool,  // cuMemAllocFromPoolAsync
  kFreeAsync,      // cuMemFreeAsync
  kPoolTrim,       // cuMemPoolTrimTo
  kCreate,         // cuMemCreate
  kRelease,        // cuMemRelease
  kMap,            // cuMemMap
  kUnmap,          // cuMemUnmap
  kHostAlloc,      // cuMemHostAlloc
  kAllocHost,      // cuMemAllocHost_v2
  kFreeHost,       // cuMemFreeHost
  kHostRegister,   // cuMemHostRegister_v2
  kHostUnregister,  // cuMemHostUnregister
  // runtime (each is recorded once: the driver call inside it adds nothing)
  kRtMalloc,               // cudaMalloc
  kRtMallocPitch,          // cudaMallocPitch
  kRtMallocManaged,        // cudaMallocManaged
  kRtFree,                 // cudaFree
  kRtMallocAsync,          // cudaMallocAsync
  kRtMallocFromPoolAsync,  // cudaMallocFromPoolAsync
  kRtFreeAsync,            // cudaFreeAsync
  kRtPoolTrim,             // cudaMemPoolTrimTo
  kRtMallocHost,           // cudaMallocHost
  kRtHostAlloc,            // cudaHostAlloc
  kRtFreeHost,             // cudaFreeHost
  kRtHostRegister,         // cudaHostRegister
  kRtHostUnregister,       // cudaHostUnregister
};

// `name` as normalize_api_name() leaves it ("cuMemAlloc_v2", "cudaMalloc").
MemoryCall memory_call_of(std::string_view name, bool runtime);

// What one call did, as far as its parameters say.
struct MemoryCallFacts {
  MemoryOp op = MemoryOp::kAlloc;
  MemorySource source = MemorySource::kDevice;
  uint64_t address = 0;  // 0 when the call failed before writing its result
  uint64_t bytes = 0;
  uint64_t stream = 0;  // the stream handle of a stream-ordered call
  uint64_t pool = 0;    // kAsync: the pool handle, 0 the device's current pool;
                        // a map: the physical handle mapped
  bool host = false;    // host memory (pinned, registered): no device
  int32_t device = -1;  // a device the parameters name (cuMemCreate), else -1
};

// Reads `params` at the call's exit (`succeeded`: the call's result was
// success, so its output pointers were written). False when there is
// nothing to record (a null free: cudaFree(0) only initialises).
bool read_memory_call(MemoryCall call, const void* params, bool succeeded, MemoryCallFacts* out);

}  // namespace brickprof::agent
