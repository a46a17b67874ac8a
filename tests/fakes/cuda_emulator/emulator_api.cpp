// The C entry points (emulator_api.h) over a library's kernel table.
#include "emulator_api.h"

#include <cstdio>
#include <cstring>

#include "emulator.h"
#include "kernel_table.h"

namespace cuda_emulator {

const KernelEntry* find_kernel(const char* name) {
  for (const KernelEntry& k : kernel_table())
    if (std::strcmp(k.name, name) == 0) return &k;
  return nullptr;
}

}  // namespace cuda_emulator

namespace {

struct Call {
  const cuda_emulator::KernelEntry* kernel;
  void** params;
};

void run_thread(void* context) {
  const Call& c = *static_cast<const Call*>(context);
  c.kernel->invoke(c.kernel->kernel, c.params);
}

}  // namespace

extern "C" int cuda_emulator_param_sizes(const char* kernel, size_t* sizes, int max) {
  const cuda_emulator::KernelEntry* k = cuda_emulator::find_kernel(kernel);
  if (k == nullptr) return -1;
  for (int i = 0; i < k->param_count && i < max; ++i) sizes[i] = k->param_sizes[i];
  return k->param_count;
}

extern "C" void cuda_emulator_track_allocation(const void* begin, size_t bytes) {
  cuda_emulator::track_allocation(begin, bytes);
}

extern "C" void cuda_emulator_forget_allocation(const void* begin) {
  cuda_emulator::forget_allocation(begin);
}

extern "C" int cuda_emulator_launch(const char* kernel, const unsigned grid[3],
                                    const unsigned block[3], unsigned shared_bytes, void** params,
                                    char* error, size_t error_size) {
  std::string why;
  if (const cuda_emulator::KernelEntry* k = cuda_emulator::find_kernel(kernel)) {
    Call call{k, params};
    why = cuda_emulator::launch(kernel, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                                shared_bytes, &run_thread, &call);
  } else {
    why = std::string(kernel) + ": no emulated version of this kernel";
  }
  if (why.empty()) return 0;
  if (error_size > 0) std::snprintf(error, error_size, "%s", why.c_str());
  return -1;
}
