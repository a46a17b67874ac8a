// CPU feature detection through the compiler's cpuid builtins.
#include "kernels/cpu_detect.h"

#include <cstdlib>
#include <cstring>
#include <fstream>

namespace bricklayer {

CpuFeatures detect_cpu() {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
  return f;
}

bool simd_supported(SimdLevel level, const CpuFeatures& f) {
  switch (level) {
    case SimdLevel::Scalar: return true;
    case SimdLevel::Avx2: return f.avx2;
    case SimdLevel::Avx512: return f.avx512;
  }
  return false;
}

SimdLevel best_simd_level(const CpuFeatures& f) {
  if (f.avx512) return SimdLevel::Avx512;
  if (f.avx2) return SimdLevel::Avx2;
  return SimdLevel::Scalar;
}

SimdLevel default_simd_level() {
  const CpuFeatures f = detect_cpu();
  SimdLevel level = best_simd_level(f);
  if (const char* env = std::getenv("BRICKLAYER_SIMD")) {
    if (std::strcmp(env, "scalar") == 0) level = SimdLevel::Scalar;
    if (std::strcmp(env, "avx2") == 0 && f.avx2) level = SimdLevel::Avx2;
  }
  return level;
}

const CpuKernels& kernels_for(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512: return avx512_kernels();
    case SimdLevel::Avx2: return avx2_kernels();
    case SimdLevel::Scalar: break;
  }
  return scalar_kernels();
}

const char* simd_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::Avx512: return "avx512";
    case SimdLevel::Avx2: return "avx2";
    case SimdLevel::Scalar: break;
  }
  return "scalar";
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

}  // namespace bricklayer
