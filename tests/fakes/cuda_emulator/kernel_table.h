// Kernels built for the emulator, looked up by name, launched with the
// driver's `void** params` (one pointer per argument, as cuLaunchKernel).
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

namespace cuda_emulator {

constexpr int kMaxParams = 16;

struct KernelEntry {
  const char* name;
  void (*kernel)();  // type-erased; `invoke` knows the real type
  void (*invoke)(void (*kernel)(), void** params);
  int param_count;
  size_t param_sizes[kMaxParams];
};

// The launch's parameter buffers are the emulator's, not device memory:
// reading them is not a kernel access to check.
template <typename... Args, size_t... I>
__attribute__((no_sanitize_thread)) void invoke_unpacked(void (*kernel)(), void** params, std::index_sequence<I...>) {
  reinterpret_cast<void (*)(Args...)>(kernel)(*static_cast<std::remove_cv_t<Args>*>(params[I])...);
}

template <typename... Args>
void invoke(void (*kernel)(), void** params) {
  invoke_unpacked<Args...>(kernel, params, std::index_sequence_for<Args...>{});
}

template <typename... Args>
constexpr KernelEntry kernel_entry(const char* name, void (*kernel)(Args...)) {
  static_assert(sizeof...(Args) <= kMaxParams, "too many kernel parameters");
  return KernelEntry{name, reinterpret_cast<void (*)()>(kernel), &invoke<Args...>,
                     static_cast<int>(sizeof...(Args)), {sizeof(Args)...}};
}

// Defined once per emulated library: its kernels.
std::span<const KernelEntry> kernel_table();

// Null if the table has no such kernel.
const KernelEntry* find_kernel(const char* name);

}  // namespace cuda_emulator

#define CUDA_EMULATOR_KERNEL(fn) ::cuda_emulator::kernel_entry(#fn, &fn)
