// dlopen/dlsym of libcuda and libcupti (see libraries.h).
#include "agent/cupti/libraries.h"

#include <dlfcn.h>
#include <link.h>

#include <vector>

namespace brickprof::agent {
std::vector<std::string> cupti_candidates(const char* cuda_home) {
  std::vector<std::string> paths = {"libcupti.so", "libcupti.so.13", "libcupti.so.12"};
  std::vector<std::string> roots;
  if (cuda_home && *cuda_home) roots.emplace_back(cuda_home);
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots)
    for (const char* sub : {"/lib64/", "/lib/", "/extras/CUPTI/lib64/"})
      paths.push_back(root + sub + "libcupti.so");
  return paths;
}

bool load_driver(Driver* d, std::string* why) {
  // RTLD_NOLOAD first: if the host already has libcuda, share its handle.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    *why = "no libcuda";
    return false;
  }
  std::string missing;
  bool ok = resolve_symbol(lib, "cuCtxGetCurrent", &d->ctx_get_current, true, &missing) &&
            resolve_symbol(lib, "cuCtxGetDevice", &d->ctx_get_device, true, &missing) &&
            resolve_symbol(lib, "cuCtxSynchronize", &d->ctx_synchronize, true, &missing) &&
            resolve_symbol(lib, "cuDeviceGetCount", &d->device_get_count, true, &missing) &&
            resolve_symbol(lib, "cuDeviceGet", &d->device_get, true, &missing) &&
            resolve_symbol(lib, "cuDeviceGetName", &d->device_get_name, true, &missing) &&
            resolve_symbol(lib, "cuDeviceGetAttribute", &d->device_get_attribute, true, &missing);
  if (!ok) *why = "libcuda " + missing;
  // The device's memory size, for the headroom: a trace without it says 0.
  resolve_symbol(lib, "cuDeviceTotalMem_v2", &d->device_total_mem, false, &missing);
  // Checksum mode and brickprof_checksum of device memory: without them,
  // device buffers are counted as not read.
  resolve_symbol(lib, "cuStreamSynchronize", &d->stream_synchronize, false, &missing);
  resolve_symbol(lib, "cuMemcpyDtoH_v2", &d->memcpy_dtoh, false, &missing);
  resolve_symbol(lib, "cuPointerGetAttribute", &d->pointer_get_attribute, false, &missing);
  resolve_symbol(lib, "cuFuncGetParamInfo", &d->func_get_param_info, false, &missing);
  resolve_symbol(lib, "cuModuleLoadData", &d->module_load_data, false, &missing);
  resolve_symbol(lib, "cuModuleGetFunction", &d->module_get_function, false, &missing);
  resolve_symbol(lib, "cuLaunchKernel", &d->launch_kernel, false, &missing);
  resolve_symbol(lib, "cuMemPoolCreate", &d->mem_pool_create, false, &missing);
  resolve_symbol(lib, "cuMemAllocFromPoolAsync", &d->mem_alloc_from_pool_async, false, &missing);
  resolve_symbol(lib, "cuMemFreeAsync", &d->mem_free_async, false, &missing);
  resolve_symbol(lib, "cuMemHostAlloc", &d->mem_host_alloc, false, &missing);
  resolve_symbol(lib, "cuMemcpyDtoHAsync_v2", &d->memcpy_dtoh_async, false, &missing);
  resolve_symbol(lib, "cuEventCreate", &d->event_create, false, &missing);
  resolve_symbol(lib, "cuEventRecord", &d->event_record, false, &missing);
  resolve_symbol(lib, "cuEventQuery", &d->event_query, false, &missing);
  resolve_symbol(lib, "cuEventSynchronize", &d->event_synchronize, false, &missing);
  return ok;
}

void* open_cupti(const std::string& candidate, std::string* file) {
  void* lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
  link_map* map = nullptr;
  *file = lib != nullptr && dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
                  map->l_name != nullptr && *map->l_name != '\0'
              ? map->l_name
              : candidate;
  return lib;
}

bool resolve_cupti(void* lib, Cupti* c, std::string* why) {
  c->library = lib;
  return resolve_symbol(lib, "cuptiSubscribe", &c->subscribe, true, why) &&
         resolve_symbol(lib, "cuptiSubscribe_v2", &c->subscribe_v2, false, why) &&
         resolve_symbol(lib, "cuptiUnsubscribe", &c->unsubscribe, true, why) &&
         resolve_symbol(lib, "cuptiEnableCallback", &c->enable_callback, true, why) &&
         resolve_symbol(lib, "cuptiEnableDomain", &c->enable_domain, true, why) &&
         resolve_symbol(lib, "cuptiGetCallbackName", &c->get_callback_name, false, why) &&
         resolve_symbol(lib, "cuptiGetResultString", &c->get_result_string, false, why) &&
         resolve_symbol(lib, "cuptiActivityEnable", &c->activity_enable, true, why) &&
         resolve_symbol(lib, "cuptiActivityDisable", &c->activity_disable, true, why) &&
         resolve_symbol(lib, "cuptiActivityRegisterCallbacks", &c->activity_register_callbacks, true,
                 why) &&
         resolve_symbol(lib, "cuptiActivityRegisterTimestampCallback", &c->register_timestamp, false,
                 why) &&
         resolve_symbol(lib, "cuptiActivityFlushAll", &c->activity_flush_all, true, why) &&
         resolve_symbol(lib, "cuptiActivityGetNextRecord", &c->activity_get_next_record, true, why) &&
         resolve_symbol(lib, "cuptiActivityGetNumDroppedRecords", &c->activity_get_num_dropped, true,
                 why) &&
         resolve_symbol(lib, "cuptiGetGraphNodeId", &c->get_graph_node_id, false, why) &&
         resolve_symbol(lib, "cuptiGetDeviceId", &c->get_device_id, false, why);
}

std::string cupti_error(const Cupti& cupti, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.get_result_string && cupti.get_result_string(result, &text) == CUPTI_SUCCESS && text)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace brickprof::agent
