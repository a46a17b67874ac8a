// The fake driver's optional execution (driver_execute.h).
#include "driver_execute.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace fake_cuda {
namespace {

// tests/fakes/cuda_emulator/emulator_api.h, resolved from the library.
using ParamSizesFn = int (*)(const char*, size_t*, int);
using LaunchFn = int (*)(const char*, const unsigned*, const unsigned*, unsigned, void**, char*,
                         size_t);
using TrackFn = void (*)(const void*, size_t);
using ForgetFn = void (*)(const void*);

struct Emulator {
  ParamSizesFn param_sizes = nullptr;
  LaunchFn launch = nullptr;
  TrackFn track_allocation = nullptr;
  ForgetFn forget_allocation = nullptr;
};

const Emulator* emulator() {
  static const Emulator* loaded = [] () -> const Emulator* {
    const char* path = std::getenv("FAKE_CUDA_KERNELS");
    if (path == nullptr || *path == '\0') return nullptr;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    auto* e = new Emulator;
    if (lib != nullptr) {
      e->param_sizes = reinterpret_cast<ParamSizesFn>(dlsym(lib, "cuda_emulator_param_sizes"));
      e->launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cuda_emulator_launch"));
      e->track_allocation =
          reinterpret_cast<TrackFn>(dlsym(lib, "cuda_emulator_track_allocation"));
      e->forget_allocation =
          reinterpret_cast<ForgetFn>(dlsym(lib, "cuda_emulator_forget_allocation"));
    }
    if (e->param_sizes == nullptr || e->launch == nullptr || e->track_allocation == nullptr ||
        e->forget_allocation == nullptr) {
      std::fprintf(stderr, "fake_cuda: FAKE_CUDA_KERNELS=%s is not an emulated kernel library: %s\n",
                   path, lib == nullptr ? dlerror() : "entry points missing");
      return nullptr;
    }
    return e;
  }();
  return loaded;
}

}  // namespace

bool executing() { return emulator() != nullptr; }

CUdeviceptr execute_alloc(size_t bytes) {
  const size_t rounded = (bytes + 255) / 256 * 256;  // the driver's alignment
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return 0;
  std::memset(p, 0xff, rounded);
  emulator()->track_allocation(p, bytes);  // kernels may touch `bytes`, not the rounding
  return reinterpret_cast<CUdeviceptr>(p);
}

void execute_free(CUdeviceptr ptr) {
  emulator()->forget_allocation(reinterpret_cast<void*>(ptr));
  std::free(reinterpret_cast<void*>(ptr));
}

bool copy_params(const CUfunc_st& f, void** params, std::vector<std::vector<unsigned char>>* out,
                 std::string* error) {
  size_t sizes[32];
  const int count = emulator()->param_sizes(f.name.c_str(), sizes, 32);
  if (count < 0) {
    *error = f.name + ": no emulated version of this kernel";
    return false;
  }
  if (count > 0 && params == nullptr) {
    *error = f.name + ": launched without kernelParams (extra= is not emulated)";
    return false;
  }
  out->clear();
  for (int i = 0; i < count; ++i) {
    const auto* bytes = static_cast<const unsigned char*>(params[i]);
    out->emplace_back(bytes, bytes + sizes[i]);
  }
  return true;
}

CUresult execute_kernel(const KernelLaunch& l) {
  std::vector<void*> params;
  for (const auto& value : l.args) params.push_back(const_cast<unsigned char*>(value.data()));
  char error[512] = "";
  if (emulator()->launch(l.function->name.c_str(), l.grid, l.block, l.shared_bytes, params.data(),
                         error, sizeof error) == 0)
    return CUDA_SUCCESS;
  std::fprintf(stderr, "fake_cuda: kernel failed: %s\n", error);
  return CUDA_ERROR_LAUNCH_FAILED;
}

}  // namespace fake_cuda
