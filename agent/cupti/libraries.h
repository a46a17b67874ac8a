// libcuda and libcupti, dlopen'ed at run time: every function the agent uses
// is resolved into a table here, so the agent has no link-time dependency
// and loads (CPU-only) where neither library exists.
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <string>
#include <vector>

namespace brickprof::agent {

struct Driver {
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  decltype(&::cuDeviceGetCount) device_get_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem_v2) device_total_mem = nullptr;  // optional
  // Checksum mode's reads of device buffers (device_reads.h); optional.
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
  decltype(&::cuPointerGetAttribute) pointer_get_attribute = nullptr;
  decltype(&::cuFuncGetParamInfo) func_get_param_info = nullptr;  // CUDA 12.4+
  // Checksum mode's device path (device_digest.h); optional: without any
  // of them, the host-copy path serves.
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuMemPoolCreate) mem_pool_create = nullptr;
  decltype(&::cuMemAllocFromPoolAsync) mem_alloc_from_pool_async = nullptr;
  decltype(&::cuMemFreeAsync) mem_free_async = nullptr;
  decltype(&::cuMemHostAlloc) mem_host_alloc = nullptr;
  decltype(&::cuMemcpyDtoHAsync_v2) memcpy_dtoh_async = nullptr;
  decltype(&::cuEventCreate) event_create = nullptr;
  decltype(&::cuEventRecord) event_record = nullptr;
  decltype(&::cuEventQuery) event_query = nullptr;
  decltype(&::cuEventSynchronize) event_synchronize = nullptr;
};

struct Cupti {
  decltype(&::cuptiSubscribe) subscribe = nullptr;
  decltype(&::cuptiSubscribe_v2) subscribe_v2 = nullptr;  // CUDA 12.9+; optional
  decltype(&::cuptiUnsubscribe) unsubscribe = nullptr;
  decltype(&::cuptiEnableCallback) enable_callback = nullptr;
  decltype(&::cuptiEnableDomain) enable_domain = nullptr;
  decltype(&::cuptiGetCallbackName) get_callback_name = nullptr;  // optional
  decltype(&::cuptiGetResultString) get_result_string = nullptr;
  decltype(&::cuptiActivityEnable) activity_enable = nullptr;
  decltype(&::cuptiActivityDisable) activity_disable = nullptr;
  decltype(&::cuptiActivityRegisterCallbacks) activity_register_callbacks = nullptr;
  decltype(&::cuptiActivityRegisterTimestampCallback) register_timestamp = nullptr;  // optional
  decltype(&::cuptiActivityFlushAll) activity_flush_all = nullptr;
  decltype(&::cuptiActivityGetNextRecord) activity_get_next_record = nullptr;
  decltype(&::cuptiActivityGetNumDroppedRecords) activity_get_num_dropped = nullptr;
  decltype(&::cuptiGetGraphNodeId) get_graph_node_id = nullptr;  // optional
  decltype(&::cuptiGetDeviceId) get_device_id = nullptr;         // optional
  // The library itself, for the range profiler's own table (range_profiler.cpp).
  void* library = nullptr;
};

// Candidate paths for libcupti, in search order: the soname first (so a
// host that already loaded one keeps it), then under $CUDA_HOME and
// /usr/local/cuda. `cuda_home` may be null.
std::vector<std::string> cupti_candidates(const char* cuda_home);

// False with a short reason ("no libcuda", "libcuda missing cuDeviceGet")
// and the table unusable.
bool load_driver(Driver* driver, std::string* why);

// One libcupti candidate: the dlopen handle and the file it came from (a
// soname candidate names no folder), or null where the candidate does not
// load (most do not exist on a given machine). Never dlclose'd: a libcupti
// that failed part-way may already have hooked into libcuda.
void* open_cupti(const std::string& candidate, std::string* file);
// Fills the table from `lib`; false with a reason ("missing
// cuptiActivityEnable") if a required function is absent.
bool resolve_cupti(void* lib, Cupti* cupti, std::string* why);

// `name` from `lib` into `slot`. A required one missing is false, with
// `*why` "missing NAME"; an optional one missing leaves `slot` null.
template <typename F>
bool resolve_symbol(void* lib, const char* name, F* slot, bool required, std::string* why) {
  *slot = reinterpret_cast<F>(dlsym(lib, name));
  if (*slot == nullptr && required) {
    *why = std::string("missing ") + name;
    return false;
  }
  return true;
}

// "CUPTI_ERROR_..." text for a result, or the number.
std::string cupti_error(const Cupti& cupti, CUptiResult result);

}  // namespace brickprof::agent
