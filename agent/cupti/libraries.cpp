// dlopen/dlsym of libcuda and libcupti (see libraries.h).
#include "agent/cupti/libraries.h"

#include <dlfcn.h>
#include <link.h>

#include <vector>

namespace brickprof::agent {
namespace {

template <typename F>
bool resolve(void* lib, const char* name, F* slot, bool required, std::string* why) {
  *slot = reinterpret_cast<F>(dlsym(lib, name));
  if (*slot == nullptr && required) {
    *why = std::string("missing ") + name;
    return false;
  }
  return true;
}

}  // namespace

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
  bool ok = resolve(lib, "cuCtxGetCurrent", &d->ctx_get_current, true, &missing) &&
            resolve(lib, "cuCtxGetDevice", &d->ctx_get_device, true, &missing) &&
            resolve(lib, "cuCtxSynchronize", &d->ctx_synchronize, true, &missing) &&
            resolve(lib, "cuDeviceGetCount", &d->device_get_count, true, &missing) &&
            resolve(lib, "cuDeviceGet", &d->device_get, true, &missing) &&
            resolve(lib, "cuDeviceGetName", &d->device_get_name, true, &missing) &&
            resolve(lib, "cuDeviceGetAttribute", &d->device_get_attribute, true, &missing);
  if (!ok) *why = "libcuda " + missing;
  // The device's memory size, for the headroom: a trace without it says 0.
  resolve(lib, "cuDeviceTotalMem_v2", &d->device_total_mem, false, &missing);
  // Checksum mode and brickprof_checksum of device memory: without them,
  // device buffers are counted as not read.
  resolve(lib, "cuStreamSynchronize", &d->stream_synchronize, false, &missing);
  resolve(lib, "cuMemcpyDtoH_v2", &d->memcpy_dtoh, false, &missing);
  resolve(lib, "cuPointerGetAttribute", &d->pointer_get_attribute, false, &missing);
  resolve(lib, "cuFuncGetParamInfo", &d->func_get_param_info, false, &missing);
  resolve(lib, "cuModuleLoadData", &d->module_load_data, false, &missing);
  resolve(lib, "cuModuleGetFunction", &d->module_get_function, false, &missing);
  resolve(lib, "cuLaunchKernel", &d->launch_kernel, false, &missing);
  resolve(lib, "cuMemPoolCreate", &d->mem_pool_create, false, &missing);
  resolve(lib, "cuMemAllocFromPoolAsync", &d->mem_alloc_from_pool_async, false, &missing);
  resolve(lib, "cuMemFreeAsync", &d->mem_free_async, false, &missing);
  resolve(lib, "cuMemHostAlloc", &d->mem_host_alloc, false, &missing);
  resolve(lib, "cuMemcpyDtoHAsync_v2", &d->memcpy_dtoh_async, false, &missing);
  resolve(lib, "cuEventCreate", &d->event_create, false, &missing);
  resolve(lib, "cuEventRecord", &d->event_record, false, &missing);
  resolve(lib, "cuEventQuery", &d->event_query, false, &missing);
  resolve(lib, "cuEventSynchronize", &d->event_synchronize, false, &missing);
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
  return resolve(lib, "cuptiSubscribe", &c->subscribe, true, why) &&
         resolve(lib, "cuptiSubscribe_v2", &c->subscribe_v2, false, why) &&
         resolve(lib, "cuptiUnsubscribe", &c->unsubscribe, true, why) &&
         resolve(lib, "cuptiEnableCallback", &c->enable_callback, true, why) &&
         resolve(lib, "cuptiEnableDomain", &c->enable_domain, true, why) &&
         resolve(lib, "cuptiGetCallbackName", &c->get_callback_name, false, why) &&
         resolve(lib, "cuptiGetResultString", &c->get_result_string, false, why) &&
         resolve(lib, "cuptiActivityEnable", &c->activity_enable, true, why) &&
         resolve(lib, "cuptiActivityDisable", &c->activity_disable, true, why) &&
         resolve(lib, "cuptiActivityRegisterCallbacks", &c->activity_register_callbacks, true,
                 why) &&
         resolve(lib, "cuptiActivityRegisterTimestampCallback", &c->register_timestamp, false,
                 why) &&
         resolve(lib, "cuptiActivityFlushAll", &c->activity_flush_all, true, why) &&
         resolve(lib, "cuptiActivityGetNextRecord", &c->activity_get_next_record, true, why) &&
         resolve(lib, "cuptiActivityGetNumDroppedRecords", &c->activity_get_num_dropped, true,
                 why) &&
         resolve(lib, "cuptiGetGraphNodeId", &c->get_graph_node_id, false, why) &&
         resolve(lib, "cuptiGetDeviceId", &c->get_device_id, false, why);
}

std::string cupti_error(const Cupti& cupti, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.get_result_string && cupti.get_result_string(result, &text) == CUPTI_SUCCESS && text)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace brickprof::agent
