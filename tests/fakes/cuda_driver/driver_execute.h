// Optional execution: with FAKE_CUDA_KERNELS naming emulated kernel
// libraries, ':'-separated (tests/fakes/cuda_emulator), device memory is real host memory, copies
// and memsets move bytes, and launches run on the CPU emulator. Without it
// the fake only books and reports work, as before.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

#include "driver_state.h"

namespace fake_cuda {

// Loads the libraries on first use; false if FAKE_CUDA_KERNELS is unset.
// A library that fails to load is reported on stderr, and all are treated
// as unset. A launch runs in the first library whose table has its kernel.
bool executing();

// Host memory standing in for device memory, filled with 0xff bytes (NaN
// as floats) so a kernel that reads memory nobody wrote shows it. The
// emulator is told, so kernels' accesses outside live allocations fail.
CUdeviceptr execute_alloc(size_t bytes);
void execute_free(CUdeviceptr ptr);

// Copies the launch's parameter values, as the driver does at launch and
// at capture. False (with `error`) if the kernel has no emulated version.
bool copy_params(const CUfunc_st& f, void** params, std::vector<std::vector<unsigned char>>* out,
                 std::string* error);

// Runs the launch; CUDA_ERROR_LAUNCH_FAILED with the emulator's reason on
// stderr if the kernel failed (a barrier in divergent code, ...).
CUresult execute_kernel(const KernelLaunch& launch);

}  // namespace fake_cuda
