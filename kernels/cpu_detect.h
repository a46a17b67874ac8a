// Picks the best CPU kernel table for this machine, or the one asked for.
#pragma once

#include <string>

#include "kernels/cpu_kernels.h"

namespace bricklayer {

enum class SimdLevel { Scalar, Avx2, Avx512 };

struct CpuFeatures {
  bool avx2 = false;  // with FMA and F16C
  bool avx512 = false;  // F, BW, VL, DQ
};

CpuFeatures detect_cpu();
SimdLevel best_simd_level(const CpuFeatures& f);
// Honours BRICKLAYER_SIMD=scalar|avx2|avx512 when set (lowered to what the
// CPU can run).
SimdLevel default_simd_level();
bool simd_supported(SimdLevel level, const CpuFeatures& f);
const CpuKernels& kernels_for(SimdLevel level);
const char* simd_name(SimdLevel level);
std::string cpu_model_name();

}  // namespace bricklayer
