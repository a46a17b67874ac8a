// The C entry points of an emulated kernel library (libbricklayer_kernels_
// emulated.so), for the fake CUDA driver to dlopen: it copies a launch's
// parameters at capture (their sizes come from here) and runs launches.
#pragma once

#include <cstddef>

// Exported; the rest of the library is hidden (direct calls on the hot
// path of the race hooks).
#define CUDA_EMULATOR_API __attribute__((visibility("default")))

extern "C" {

// Sizes of `kernel`'s parameters in order, at most `max`; returns their
// count, or -1 if the library has no such kernel.
CUDA_EMULATOR_API int cuda_emulator_param_sizes(const char* kernel, size_t* sizes, int max);

// Runs the kernel to completion. Returns 0, or -1 with a one-line reason in
// `error` (NUL-terminated, truncated to error_size).
// Device memory allocated and freed: once any is reported, kernels'
// global accesses outside the live allocations fail their launch.
CUDA_EMULATOR_API void cuda_emulator_track_allocation(const void* begin, size_t bytes);
CUDA_EMULATOR_API void cuda_emulator_forget_allocation(const void* begin);

CUDA_EMULATOR_API int cuda_emulator_launch(const char* kernel, const unsigned grid[3],
                                           const unsigned block[3], unsigned shared_bytes,
                                           void** params, char* error, size_t error_size);
}
