// The CUDA driver functions bricklayer uses, resolved from libcuda.so.1 at run time.
#pragma once

#include <cuda.h>

#include <string>

namespace bricklayer::cuda {

// X-macro of the entry points. cuda.h maps some names to versioned symbols
// (cuMemAlloc -> cuMemAlloc_v2); the table stores and looks up those.
#define BRICKLAYER_CUDA_API(X)   \
  X(cuInit)                      \
  X(cuGetErrorString)            \
  X(cuDeviceGetCount)            \
  X(cuDeviceGet)                 \
  X(cuDeviceGetName)             \
  X(cuDeviceGetAttribute)        \
  X(cuDevicePrimaryCtxRetain)    \
  X(cuDevicePrimaryCtxRelease)   \
  X(cuCtxSetCurrent)             \
  X(cuModuleLoadData)            \
  X(cuModuleUnload)              \
  X(cuModuleGetFunction)         \
  X(cuFuncSetAttribute)          \
  X(cuMemAlloc)                  \
  X(cuMemFree)                   \
  X(cuMemcpyHtoD)                \
  X(cuMemcpyDtoH)                \
  X(cuMemsetD8)                  \
  X(cuStreamCreate)              \
  X(cuStreamDestroy)             \
  X(cuStreamSynchronize)         \
  X(cuLaunchKernel)              \
  X(cuStreamBeginCapture)        \
  X(cuStreamEndCapture)          \
  X(cuGraphInstantiate)          \
  X(cuGraphLaunch)               \
  X(cuGraphExecDestroy)          \
  X(cuGraphDestroy)

// Pointer types first (a member may not reuse a name its own type mentions).
#define BRICKLAYER_CUDA_CAT2(a, b) a##b
#define BRICKLAYER_CUDA_CAT(a, b) BRICKLAYER_CUDA_CAT2(a, b)
#define BRICKLAYER_CUDA_TYPE(name) using BRICKLAYER_CUDA_CAT(pfn_, name) = decltype(&::name);
BRICKLAYER_CUDA_API(BRICKLAYER_CUDA_TYPE)
#undef BRICKLAYER_CUDA_TYPE

struct DriverApi {
#define BRICKLAYER_CUDA_FIELD(name) BRICKLAYER_CUDA_CAT(pfn_, name) name = nullptr;
  BRICKLAYER_CUDA_API(BRICKLAYER_CUDA_FIELD)
#undef BRICKLAYER_CUDA_FIELD
};

// Opens libcuda.so.1 once and resolves every entry point. Returns null and
// sets `error` (one line) when the library or a symbol is missing; never
// links against libcuda, so the binary starts on machines without a driver.
const DriverApi* driver_api(std::string* error);

// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" style text.
std::string error_text(const DriverApi& api, CUresult r);

}  // namespace bricklayer::cuda
