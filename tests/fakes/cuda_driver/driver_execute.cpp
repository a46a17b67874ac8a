// The fake driver's optional execution (driver_execute.h).
#include "driver_execute.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

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

// One emulated library, or null (said on stderr) if `path` is not one.
const Emulator* load_library(const std::string& path) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto* e = new Emulator;
  if (lib != nullptr) {
    e->param_sizes = reinterpret_cast<ParamSizesFn>(dlsym(lib, "cuda_emulator_param_sizes"));
    e->launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cuda_emulator_launch"));
    e->track_allocation = reinterpret_cast<TrackFn>(dlsym(lib, "cuda_emulator_track_allocation"));
    e->forget_allocation =
        reinterpret_cast<ForgetFn>(dlsym(lib, "cuda_emulator_forget_allocation"));
  }
  if (e->param_sizes == nullptr || e->launch == nullptr || e->track_allocation == nullptr ||
      e->forget_allocation == nullptr) {
    std::fprintf(stderr, "fake_cuda: FAKE_CUDA_KERNELS: %s is not an emulated kernel library: %s\n",
                 path.c_str(), lib == nullptr ? dlerror() : "entry points missing");
    delete e;
    return nullptr;
  }
  return e;
}

// FAKE_CUDA_KERNELS: emulated libraries separated by ':' (a program's
// kernels, the agent's reduction kernels); empty if unset or if any fails
// to load. Each library has its own emulator, each told of every
// allocation.
const std::vector<const Emulator*>& emulators() {
  static const std::vector<const Emulator*>* loaded = [] {
    auto* out = new std::vector<const Emulator*>;
    const char* paths = std::getenv("FAKE_CUDA_KERNELS");
    if (paths == nullptr) return out;
    std::string rest = paths;
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string path = rest.substr(0, colon);
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
      if (path.empty()) continue;
      const Emulator* e = load_library(path);
      if (e == nullptr) {
        out->clear();
        return out;
      }
      out->push_back(e);
    }
    return out;
  }();
  return *loaded;
}

// The library whose table has `kernel`, or null.
const Emulator* emulator_of(const std::string& kernel, size_t* sizes, int max, int* count) {
  for (const Emulator* e : emulators()) {
    *count = e->param_sizes(kernel.c_str(), sizes, max);
    if (*count >= 0) return e;
  }
  return nullptr;
}

}  // namespace

bool executing() { return !emulators().empty(); }

CUdeviceptr execute_alloc(size_t bytes) {
  const size_t rounded = (bytes + 255) / 256 * 256;  // the driver's alignment
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return 0;
  std::memset(p, 0xff, rounded);
  // Kernels may touch `bytes`, not the rounding.
  for (const Emulator* e : emulators()) e->track_allocation(p, bytes);
  return reinterpret_cast<CUdeviceptr>(p);
}

void execute_free(CUdeviceptr ptr) {
  for (const Emulator* e : emulators()) e->forget_allocation(reinterpret_cast<void*>(ptr));
  std::free(reinterpret_cast<void*>(ptr));
}

bool copy_params(const CUfunc_st& f, void** params, std::vector<std::vector<unsigned char>>* out,
                 std::string* error) {
  size_t sizes[32];
  int count = -1;
  if (emulator_of(f.name, sizes, 32, &count) == nullptr) {
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
  size_t sizes[32];
  int count = 0;
  const Emulator* e = emulator_of(l.function->name, sizes, 32, &count);
  if (e == nullptr) {
    std::fprintf(stderr, "fake_cuda: kernel failed: %s: no emulated version\n",
                 l.function->name.c_str());
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  if (e->launch(l.function->name.c_str(), l.grid, l.block, l.shared_bytes, params.data(),
                         error, sizeof error) == 0)
    return CUDA_SUCCESS;
  std::fprintf(stderr, "fake_cuda: kernel failed: %s\n", error);
  return CUDA_ERROR_LAUNCH_FAILED;
}

}  // namespace fake_cuda
