// The fake driver's initialisation, device queries and contexts. cuInit
// loads CUDA_INJECTION64_PATH as the real driver does, so the agent's
// injection entry point is exercised too.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "driver_state.h"
#include "driver_trace.h"
#include "fake_cuda.h"

using namespace fake_cuda;

namespace {

void load_injection() {
  static std::atomic<bool> done{false};
  if (done.exchange(true)) return;
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return;
  using Init = int (*)();
  if (auto init = reinterpret_cast<Init>(dlsym(lib, "InitializeInjection"))) init();
}

bool valid_device(CUdevice dev) { return dev >= 0 && dev < device_count(); }

}  // namespace

namespace fake_cuda {

int device_count() {
  static const int count = [] {
    const char* n = std::getenv(kEnvDevices);
    int v = n != nullptr ? std::atoi(n) : 1;
    return v >= 1 && v <= 16 ? v : 1;
  }();
  return count;
}

}  // namespace fake_cuda

CUresult CUDAAPI cuInit(unsigned int flags) {
  load_injection();
  cuInit_params p{flags};
  TRACED(cuInit, &p);
  set_initialized();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  cuDeviceGetCount_params p{count};
  TRACED(cuDeviceGetCount, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (count == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *count = device_count();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  cuDeviceGet_params p{device, ordinal};
  TRACED(cuDeviceGet, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (device == nullptr || !valid_device(ordinal)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  cuDeviceGetName_params p{name, len, dev};
  TRACED(cuDeviceGetName, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (!valid_device(dev)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (name == nullptr || len <= 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  std::snprintf(name, static_cast<size_t>(len), "%s", kDeviceName);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetAttribute(int* value, CUdevice_attribute attrib, CUdevice dev) {
  cuDeviceGetAttribute_params p{value, attrib, dev};
  TRACED(cuDeviceGetAttribute, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (!valid_device(dev)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (value == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  switch (attrib) {  // an H100 SXM's figures
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      *value = kSmCount;
      break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      *value = 1980000;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      *value = 2619000;
      break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      *value = 5120;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *value = kCcMajor;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *value = kCcMinor;
      break;
    // The launch limits the fake enforces (driver_limits.h).
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = static_cast<int>(kMaxThreadsPerBlock);
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      *value = static_cast<int>(kMaxBlockDim[attrib - CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X]);
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      *value = static_cast<int>(kMaxGridDim[attrib - CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X]);
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      *value = kSharedPerBlock;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *value = kSharedPerBlockOptin;
      break;
    default:
      return call.finish(CUDA_ERROR_INVALID_VALUE);
  }
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags,
                                CUdevice dev) {
  cuCtxCreate_v4_params p{pctx, params, flags, dev};
  TRACED(cuCtxCreate_v4, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (!valid_device(dev)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (pctx == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *pctx = new_context(dev);
  // The new context is current on this thread when CUPTI hears of it.
  set_current_context(*pctx);
  resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, *pctx);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
  cuCtxDestroy_v2_params p{ctx};
  TRACED(cuCtxDestroy_v2, &p);
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, ctx);
  // What the client did not flush by now is lost with the context.
  if (const Tool* t = tool()) t->context_destroyed(context_id(ctx));
  if (current_context() == ctx) set_current_context(nullptr);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
  cuCtxGetCurrent_params p{pctx};
  TRACED(cuCtxGetCurrent, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (pctx == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *pctx = current_context();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  cuCtxSetCurrent_params p{ctx};
  TRACED(cuCtxSetCurrent, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  set_current_context(ctx);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  cuCtxGetDevice_params p{device};
  TRACED(cuCtxGetDevice, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (device == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  if (current_context() == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  *device = current_context()->device;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  cuDevicePrimaryCtxRetain_params p{pctx, dev};
  TRACED(cuDevicePrimaryCtxRetain, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (!valid_device(dev)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (pctx == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  bool created = false;
  *pctx = retain_primary_context(dev, &created);
  // Unlike cuCtxCreate, retaining does not make the context current.
  if (created) resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, *pctx);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  cuDevicePrimaryCtxRelease_v2_params p{dev};
  TRACED(cuDevicePrimaryCtxRelease_v2, &p);
  if (!valid_device(dev)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (CUcontext ctx = release_primary_context(dev)) {
    resource_callback(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, ctx);
    if (const Tool* t = tool()) t->context_destroyed(context_id(ctx));
  }
  return call.finish(CUDA_SUCCESS);
}

// Not traced: CUPTI reports no callback for it either.
CUresult CUDAAPI cuGetErrorString(CUresult error, const char** text) {
  if (text == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *text = error == CUDA_SUCCESS ? "no error" : "fake driver error";
  return CUDA_SUCCESS;
}
