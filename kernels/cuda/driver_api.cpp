// dlopen-based resolution of the CUDA driver API table.
#include "kernels/cuda/driver_api.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

namespace bricklayer::cuda {

#define BRICKLAYER_STR2(x) #x
#define BRICKLAYER_STR(x) BRICKLAYER_STR2(x)

const DriverApi* driver_api(std::string* error) {
  static DriverApi api;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      failure = std::string("cannot load libcuda.so.1 (no NVIDIA driver?)") + (e ? ": " : "") +
                (e ? e : "");
      return;
    }
    // The names after macro expansion are the versioned symbols.
#define BRICKLAYER_CUDA_RESOLVE(name)                                       \
  if (failure.empty()) {                                                    \
    void* sym = dlsym(lib, BRICKLAYER_STR(name));                           \
    if (!sym) {                                                             \
      failure = std::string("libcuda.so.1 lacks ") + BRICKLAYER_STR(name);  \
    } else {                                                                \
      std::memcpy(&api.name, &sym, sizeof sym);                             \
    }                                                                       \
  }
    BRICKLAYER_CUDA_API(BRICKLAYER_CUDA_RESOLVE)
#undef BRICKLAYER_CUDA_RESOLVE
    // The library stays loaded for the life of the process (the driver does
    // not support being unloaded while contexts exist).
  });
  if (!failure.empty()) {
    if (error) *error = failure;
    return nullptr;
  }
  return &api;
}

std::string error_text(const DriverApi& api, CUresult r) {
  const char* s = nullptr;
  if (api.cuGetErrorString && api.cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
    return std::string(s) + " (" + std::to_string(static_cast<int>(r)) + ")";
  return "CUDA error " + std::to_string(static_cast<int>(r));
}

}  // namespace bricklayer::cuda
