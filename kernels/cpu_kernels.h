// The table of CPU kernels one SIMD level provides (scalar, AVX2, AVX-512).
#pragma once

#include <cstdint>

#include "kernels/q4k_format.h"

namespace bricklayer {

// Every entry works on plain pointers so the SIMD translation units include
// nothing with inline code that the linker could share with scalar code.
struct CpuKernels {
  const char* name;
  // y[t*ldy + r] = row r of W . x_t for r in [r0, r1) and t < m.
  // Q4_K weights with Q8_K activations (nb super-blocks per row); null in the
  // scalar table, which uses gemv_q4k_f32 (exact f32 activations) instead.
  void (*gemv_q4k_q8)(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const BlockQ8K* x,
                      int m, float* y, int64_t ldy);
  // Activations to Q8_K, bit-identical to quantize_row_q8k (n multiple of
  // 256). The SIMD ones are ~20x faster; it runs once per MulMat input on the
  // calling thread while the others wait.
  void (*quantize_q8k)(const float* x, BlockQ8K* y, int64_t n);
  void (*gemv_q4k_f32)(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const float* x,
                       int m, float* y, int64_t ldy);
  void (*gemv_f32)(const float* w, int64_t k, int64_t r0, int64_t r1, const float* x, int m,
                   float* y, int64_t ldy);
  void (*rms_norm)(const float* x, const float* w, float* y, int64_t n, float eps);
  void (*add)(const float* a, const float* b, float* y, int64_t n);
  void (*mul)(const float* a, const float* b, float* y, int64_t n);
  void (*silu)(const float* x, float* y, int64_t n);
  float (*dot)(const float* a, const float* b, int64_t n);
  void (*axpy)(float a, const float* x, float* y, int64_t n);  // y += a*x
  // Sum of n floats, streaming: the read-bandwidth probe.
  float (*sum)(const float* x, int64_t n);
  // The FLOP-throughput probe: `rounds` rounds of independent multiply-add
  // chains held in registers (enough chains to cover the FMA latency on
  // every FMA port); writes a result to *sink so nothing is optimised away
  // and returns the FLOPs done (2 per lane per multiply-add).
  double (*fma_chains)(int64_t rounds, float* sink);
};

const CpuKernels& scalar_kernels();
// Only call these after cpu_detect says the CPU has the instructions.
const CpuKernels& avx2_kernels();
const CpuKernels& avx512_kernels();

}  // namespace bricklayer
