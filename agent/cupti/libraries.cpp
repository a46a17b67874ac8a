// dlopen/dlsym of libcuda and libcupti (see libraries.h).
#include "agent/cupti/libraries.h"

#include <dlfcn.h>

#include <cstdlib>
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
  return ok;
}

bool load_cupti(Cupti* c, std::string* why, std::string* path_loaded) {
  void* lib = nullptr;
  for (const std::string& path : cupti_candidates(std::getenv("CUDA_HOME"))) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      *path_loaded = path;
      break;
    }
  }
  if (lib == nullptr) {
    *why = "no libcupti";
    return false;
  }
  std::string missing;
  bool ok =
      resolve(lib, "cuptiSubscribe", &c->subscribe, true, &missing) &&
      resolve(lib, "cuptiSubscribe_v2", &c->subscribe_v2, false, &missing) &&
      resolve(lib, "cuptiUnsubscribe", &c->unsubscribe, true, &missing) &&
      resolve(lib, "cuptiEnableCallback", &c->enable_callback, true, &missing) &&
      resolve(lib, "cuptiEnableDomain", &c->enable_domain, true, &missing) &&
      resolve(lib, "cuptiGetCallbackName", &c->get_callback_name, false, &missing) &&
      resolve(lib, "cuptiGetResultString", &c->get_result_string, false, &missing) &&
      resolve(lib, "cuptiActivityEnable", &c->activity_enable, true, &missing) &&
      resolve(lib, "cuptiActivityRegisterCallbacks", &c->activity_register_callbacks, true,
              &missing) &&
      resolve(lib, "cuptiActivityRegisterTimestampCallback", &c->register_timestamp, false,
              &missing) &&
      resolve(lib, "cuptiActivityFlushAll", &c->activity_flush_all, true, &missing) &&
      resolve(lib, "cuptiActivityGetNextRecord", &c->activity_get_next_record, true, &missing) &&
      resolve(lib, "cuptiActivityGetNumDroppedRecords", &c->activity_get_num_dropped, true,
              &missing) &&
      resolve(lib, "cuptiGetGraphNodeId", &c->get_graph_node_id, false, &missing) &&
      resolve(lib, "cuptiGetDeviceId", &c->get_device_id, false, &missing);
  if (!ok) *why = "libcupti " + missing;
  return ok;
}

std::string cupti_error(const Cupti& cupti, CUptiResult result) {
  const char* text = nullptr;
  if (cupti.get_result_string && cupti.get_result_string(result, &text) == CUPTI_SUCCESS && text)
    return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace brickprof::agent
