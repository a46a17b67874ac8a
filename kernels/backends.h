// Backend selection by name: auto, scalar, avx2, avx512, cuda.
#pragma once

#include <memory>
#include <string>

#include "kernels/cpu_kernels.h"
#include "kernels/dispatch.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

// True when this binary was built with the CUDA backend (nvcc was found).
bool cuda_built();

// Makes the dispatcher `name` asks for; on failure returns null and sets
// `error` to one line ("avx512 is not supported by this CPU", ...).
// "auto" is the best CPU backend (CUDA only when asked for).
std::unique_ptr<Dispatcher> make_backend(const std::string& name, ThreadPool& pool,
                                         std::string* error);

// Device read bandwidth in GB/s for the CUDA backend (0 when not CUDA).
double device_read_bandwidth(Dispatcher& d);
// The kernel table of a CPU backend; null for CUDA.
const CpuKernels* cpu_kernels_of(Dispatcher& d);

}  // namespace bricklayer
