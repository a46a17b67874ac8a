// Scalar reference kernels: plain loops, the oracle the SIMD kernels are tested against.
#include <cmath>

#include "kernels/cpu_kernels.h"
#include "kernels/gemv_tiles.h"
#include "kernels/q4k.h"

namespace bricklayer {
namespace {

void gemv_q4k_f32(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const float* x, int m,
                  float* y, int64_t ldy) {
  const GemvRow shape = {nb * kQK, nb * static_cast<int64_t>(sizeof(BlockQ4K)), m, nb * kQK * 4};
  tiled_rows(r0, r1, shape, [&](int64_t r) {
    for (int t = 0; t < m; ++t) y[t * ldy + r] = dot_q4k_f32_ref(w + r * nb, x + t * nb * kQK, nb);
  });
}

void gemv_f32(const float* w, int64_t k, int64_t r0, int64_t r1, const float* x, int m, float* y,
              int64_t ldy) {
  const GemvRow shape = {k, k * 4, m, k * 4};
  tiled_rows(r0, r1, shape, [&](int64_t r) {
    for (int t = 0; t < m; ++t) {
      float s = 0;
      for (int64_t i = 0; i < k; ++i) s += w[r * k + i] * x[t * k + i];
      y[t * ldy + r] = s;
    }
  });
}

void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps) {
  float ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const float scale = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale * w[i];
}

void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void mul(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void silu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

float dot(const float* a, const float* b, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

void axpy(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}

float sum(const float* x, int64_t n) {
  float s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i];
  return s;
}

// Plain multiply-adds: what the compiler makes of them at the baseline ISA,
// so the figure is what this table's code can reach. GCC -O3 packs the
// chains four to an SSE register (as it vectorises the loops above): 32
// chains make 8 registers, enough to cover a multiply-then-add latency.
double fma_chains(int64_t rounds, float* sink) {
  constexpr int kChains = 32;
  float a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = static_cast<float>(i);
  for (int64_t r = 0; r < rounds; ++r)
    for (int i = 0; i < kChains; ++i) a[i] = a[i] * 0.999f + 1e-3f;
  float s = 0;
  for (float v : a) s += v;
  *sink = s;
  return 2.0 * kChains * static_cast<double>(rounds);
}

constexpr CpuKernels kScalar = {
    "scalar", nullptr, quantize_row_q8k, gemv_q4k_f32, gemv_f32, rms_norm, add, mul, silu, dot,
    axpy, sum, fma_chains,
};

}  // namespace

const CpuKernels& scalar_kernels() { return kScalar; }

}  // namespace bricklayer
