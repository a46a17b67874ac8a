// The runtime that kernel code built with -fsanitize=thread calls: GCC
// inserts __tsan_readN / __tsan_writeN before every load and store it cannot
// prove thread-private. This file stands in for libtsan (which is not
// linked) and hands each access to the emulator's race check; the rest are
// the entry points the instrumentation also emits, doing what they must.
// Built without the flag, so its own accesses are not instrumented.
#include <cstddef>
#include <cstdint>

#include "emulator.h"

using cuda_emulator::check_access;

#define CUDA_EMULATOR_ACCESS_HOOKS(n)                                                      \
  extern "C" void __tsan_read##n(void* a) { check_access(a, n, false); }                   \
  extern "C" void __tsan_write##n(void* a) { check_access(a, n, true); }                   \
  extern "C" void __tsan_unaligned_read##n(void* a) { check_access(a, n, false); }         \
  extern "C" void __tsan_unaligned_write##n(void* a) { check_access(a, n, true); }

CUDA_EMULATOR_ACCESS_HOOKS(1)
CUDA_EMULATOR_ACCESS_HOOKS(2)
CUDA_EMULATOR_ACCESS_HOOKS(4)
CUDA_EMULATOR_ACCESS_HOOKS(8)
CUDA_EMULATOR_ACCESS_HOOKS(16)

extern "C" {

void __tsan_read_range(void* a, size_t size) { check_access(a, size, false); }
void __tsan_write_range(void* a, size_t size) { check_access(a, size, true); }

void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

// Atomics (function-local static guards): done, not checked. `order` is a
// C++ memory order; sequential consistency covers every one of them.
uint8_t __tsan_atomic8_load(const volatile uint8_t* a, int) {
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
uint32_t __tsan_atomic32_load(const volatile uint32_t* a, int) {
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
uint64_t __tsan_atomic64_load(const volatile uint64_t* a, int) {
  return __atomic_load_n(a, __ATOMIC_SEQ_CST);
}
void __tsan_atomic8_store(volatile uint8_t* a, uint8_t v, int) {
  __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}
void __tsan_atomic32_store(volatile uint32_t* a, uint32_t v, int) {
  __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}
void __tsan_atomic64_store(volatile uint64_t* a, uint64_t v, int) {
  __atomic_store_n(a, v, __ATOMIC_SEQ_CST);
}

}  // extern "C"
