// The fake driver's memory accounts (driver_memory.cpp): what each device
// holds, so an allocation that does not fit is refused as a GPU refuses it.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "driver_state.h"

namespace fake_cuda {

// The device's memory size: FAKE_CUDA_DEVICE_MEMORY bytes, else kDeviceMemory.
uint64_t device_memory_bytes();

// cuStreamSynchronize, cuEventSynchronize and cuCtxSynchronize give a
// pool's unused reserve back down to its release threshold (cuda.h,
// CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: "the allocator will try to release
// memory back to the OS on the next call to stream, event or context
// synchronize").
void release_pools_at_sync();

// Whether [address, address + bytes) lies inside one live allocation
// (cuMemAlloc*, a pool's, managed, pinned) or one mapped VA range: what a
// copy from or to device memory needs, as the driver checks it
// (cuMemcpyDtoH: CUDA_ERROR_INVALID_VALUE otherwise).
bool range_is_allocated(uint64_t address, uint64_t bytes);

// Runs one memory node (captured cuMemAllocAsync/cuMemFreeAsync) of a
// graph launch (driver_memory.cpp), with the launch's correlation id.
CUresult run_memory_node(CUgraphExec_st& exec, CUgraphNode_st& node, CUcontext ctx,
                         CUstream stream, uint32_t correlation);

}  // namespace fake_cuda
