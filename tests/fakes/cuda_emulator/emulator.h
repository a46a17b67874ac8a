// A CPU emulator of CUDA's execution model, for tests on machines without a
// GPU: each CUDA thread of a block is a fiber on the calling OS thread, and
// fibers switch only at barriers (__syncthreads, warp shuffles). Blocks run
// one after another. It checks what a GPU would leave undefined: threads
// that reach different barriers, shuffles with exited lanes, shared memory
// read before it is written (poisoned with NaNs) or past its end (a guard
// page), and, in kernels built with -fsanitize=thread and
// -fsanitize=alignment, data races, misaligned accesses and global accesses
// outside the live device allocations. It computes; it does not model
// timing, memory ordering or caches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cuda_emulator {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// One thread's run of a kernel: `body(context)` with the indices below set.
using ThreadBody = void (*)(void* context);

// Runs every block of the grid to completion. Returns "" or a one-line
// error naming the kernel, the block and what went wrong. One launch at a
// time per process (launches from other threads wait).
std::string launch(const char* kernel, Dim3 grid, Dim3 block, unsigned shared_bytes,
                   ThreadBody body, void* context);

// What kernel code sees (cuda_prelude.h maps CUDA's names onto these).
const Dim3& thread_idx();
const Dim3& block_idx();
const Dim3& block_dim();
const Dim3& grid_dim();
// __syncthreads at `site` ("file:line").
void sync_threads(const char* site);
// __shfl_xor_sync on 32-bit values; every lane of the warp must take part.
uint32_t shuffle_xor(uint32_t bits, unsigned mask, int lane_mask, int width);
// The launch's dynamic shared memory (NaN-filled at the start of each block).
void* dynamic_shared();

// Called before each memory access of kernel code built with
// -fsanitize=thread (race_hooks.cpp): fails the launch on a data race (see
// race_shadow.h). Does nothing outside a launch's threads.
void check_access(const void* address, size_t size, bool write);

// Device memory the caller (the fake driver) allocated and freed. Once any
// is reported, a kernel's global access outside the live allocations fails
// its launch (device_memory.h).
void track_allocation(const void* begin, size_t bytes);
void forget_allocation(const void* begin);

// Called (alignment_hooks.cpp) for an access through a pointer that is not
// aligned for `type`, in kernel code built with -fsanitize=alignment: fails
// the launch, as a GPU would. Outside a launch, prints and aborts.
[[noreturn]] void report_misaligned(const void* address, unsigned alignment, const char* type,
                                    const char* file, unsigned line);

}  // namespace cuda_emulator
