// Backend factory: CPU kernel tables by detected features, CUDA when built and present.
#include "kernels/backends.h"

#include "kernels/cpu_backend.h"
#include "kernels/cpu_detect.h"
#ifdef BRICKLAYER_HAVE_CUDA
#include "kernels/cuda/cuda_backend.h"
#endif

namespace bricklayer {

bool cuda_built() {
#ifdef BRICKLAYER_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Dispatcher> make_backend(const std::string& name, ThreadPool& pool,
                                         std::string* error) {
  const CpuFeatures f = detect_cpu();
  SimdLevel level;
  if (name == "auto") {
    level = default_simd_level();
  } else if (name == "scalar") {
    level = SimdLevel::Scalar;
  } else if (name == "avx2") {
    level = SimdLevel::Avx2;
  } else if (name == "avx512") {
    level = SimdLevel::Avx512;
  } else if (name == "cuda") {
#ifdef BRICKLAYER_HAVE_CUDA
    return make_cuda_backend(error);
#else
    *error = "backend cuda: this bricklayer was built without CUDA (nvcc was not found)";
    return nullptr;
#endif
  } else {
    *error = "unknown backend '" + name + "' (expected auto, scalar, avx2, avx512 or cuda)";
    return nullptr;
  }
  if (!simd_supported(level, f)) {
    *error = std::string("backend ") + simd_name(level) + ": not supported by this CPU";
    return nullptr;
  }
  return std::make_unique<CpuBackend>(kernels_for(level), pool);
}

double device_read_bandwidth([[maybe_unused]] Dispatcher& d) {
#ifdef BRICKLAYER_HAVE_CUDA
  if (auto* c = dynamic_cast<CudaBackend*>(&d)) return c->measure_read_bandwidth();
#endif
  return 0;
}

const CpuKernels* cpu_kernels_of(Dispatcher& d) {
  auto* c = dynamic_cast<CpuBackend*>(&d);
  return c ? &c->kernels() : nullptr;
}

}  // namespace bricklayer
