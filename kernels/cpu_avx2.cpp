// AVX2 + FMA + F16C kernels (this file alone is compiled with -mavx2 -mfma -mf16c).
#include <immintrin.h>

#include "kernels/cpu_kernels.h"
#include "kernels/gemv_tiles.h"
#include "kernels/q4k_simd.h"

namespace bricklayer {
namespace {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float hsum128(__m128 s) {
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

inline float half(uint16_t h) { return _cvtsh_ss(h); }

// Dot of one Q4_K row with one Q8_K vector. Integer sums are exact; they are
// scaled to float once per super-block.
inline float dot_row(const BlockQ4K* w, const BlockQ8K* x, int64_t nb) {
  const __m256i m4 = _mm256_set1_epi8(0x0f);
  // Shuffle patterns that broadcast the 16-bit scale j to every lane.
  __m256i bcast[8];
  for (int j = 0; j < 8; ++j) bcast[j] = _mm256_set1_epi16(static_cast<int16_t>((2 * j + 1) << 8 | 2 * j));
  __m256 acc = _mm256_setzero_ps();
  __m128 acc_min = _mm_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ4K& blk = w[b];
    const BlockQ8K& q8 = x[b];
    prefetch_block_ahead(&blk);
    uint64_t sc, mn;
    unpack_scales(blk.scales, &sc, &mn);
    const __m128i sc16 = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<int64_t>(sc)));
    const __m256i scales = _mm256_broadcastsi128_si256(sc16);
    __m256i isum = _mm256_setzero_si256();
    for (int c = 0; c < 4; ++c) {
      const __m256i q4 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.qs + 32 * c));
      const __m256i lo = _mm256_and_si256(q4, m4);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q4, 4), m4);
      const int8_t* y = q8.qs + (c >> 1) * 128 + (c & 1) * 32;
      const __m256i ylo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y));
      const __m256i yhi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 64));
      __m256i plo = _mm256_maddubs_epi16(lo, ylo);  // 15*127*2 fits in int16
      __m256i phi = _mm256_maddubs_epi16(hi, yhi);
      plo = _mm256_madd_epi16(plo, _mm256_shuffle_epi8(scales, bcast[2 * c]));
      phi = _mm256_madd_epi16(phi, _mm256_shuffle_epi8(scales, bcast[2 * c + 1]));
      isum = _mm256_add_epi32(isum, _mm256_add_epi32(plo, phi));
    }
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_set1_ps(half(blk.d) * q8.d), acc);
    const __m128i mn16 = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<int64_t>(mn)));
    const __m128i bs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q8.bsums));
    acc_min = _mm_fmadd_ps(_mm_cvtepi32_ps(_mm_madd_epi16(mn16, bs)),
                           _mm_set1_ps(half(blk.dmin) * q8.d), acc_min);
  }
  return hsum(acc) - hsum128(acc_min);
}

void gemv_q4k_q8(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const BlockQ8K* x, int m,
                 float* y, int64_t ldy) {
  const GemvRow shape = {nb * kQK, nb * static_cast<int64_t>(sizeof(BlockQ4K)), m,
                         nb * static_cast<int64_t>(sizeof(BlockQ8K))};
  tiled_rows(r0, r1, shape, [&](int64_t r) {
    for (int t = 0; t < m; ++t) y[t * ldy + r] = dot_row(w + r * nb, x + t * nb, nb);
  });
}

// Q8_K as quantize_row_q8k computes it, 8 values at a time: the same float
// operations (x * 127/amax, clamp, +-0.5, truncate), so the same bits. Natural
// sub-block j goes to nibble-order slot kSlot[j] (q4k_format.h).
void quantize_q8k(const float* x, BlockQ8K* y, int64_t n) {
  constexpr int kSlot[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  const __m256 sign = _mm256_set1_ps(-0.0f), lim = _mm256_set1_ps(127.0f);
  const __m256 nlim = _mm256_set1_ps(-127.0f), zero = _mm256_setzero_ps();
  const __m256 plus = _mm256_set1_ps(0.5f), minus = _mm256_set1_ps(-0.5f);
  // packs_epi32 / packs_epi16 interleave 128-bit lanes; this puts them back.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t b = 0; b < n / 256; ++b) {
    const float* s = x + b * 256;
    __m256 mx = _mm256_setzero_ps();
    for (int i = 0; i < 256; i += 8)
      mx = _mm256_max_ps(mx, _mm256_andnot_ps(sign, _mm256_loadu_ps(s + i)));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const float amax = _mm_cvtss_f32(m4);
    BlockQ8K& out = y[b];
    out.d = amax / 127.0f;
    const __m256 inv = _mm256_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
    for (int j = 0; j < 8; ++j) {
      __m256i q[4];
      for (int i = 0; i < 4; ++i) {
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(s + 32 * j + 8 * i), inv);
        v = _mm256_min_ps(_mm256_max_ps(v, nlim), lim);
        // +0.5 for v >= 0 (-0.0 included, as in the scalar code), else -0.5.
        v = _mm256_add_ps(v, _mm256_blendv_ps(plus, minus, _mm256_cmp_ps(v, zero, _CMP_LT_OQ)));
        q[i] = _mm256_cvttps_epi32(v);
      }
      const __m256i sum =
          _mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3]));
      __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
      s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4e));
      s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xb1));
      out.bsums[j] = static_cast<int16_t>(_mm_cvtsi128_si32(s4));
      const __m256i w =
          _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.qs + 32 * kSlot[j]),
                          _mm256_permutevar8x32_epi32(w, order));
    }
  }
}

float dot(const float* a, const float* b, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
  }
  for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
  float s = hsum(_mm256_add_ps(s0, s1));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

void gemv_f32(const float* w, int64_t k, int64_t r0, int64_t r1, const float* x, int m, float* y,
              int64_t ldy) {
  const GemvRow shape = {k, k * 4, m, k * 4};
  tiled_rows(r0, r1, shape, [&](int64_t r) {
    for (int t = 0; t < m; ++t) y[t * ldy + r] = dot(w + r * k, x + t * k, k);
  });
}

void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps) {
  const float ss = dot(x, x, n);
  const float scale = 1.0f / __builtin_sqrtf(ss / static_cast<float>(n) + eps);
  const __m256 vs = _mm256_set1_ps(scale);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), vs),
                                          _mm256_loadu_ps(w + i)));
  }
  for (; i < n; ++i) y[i] = x[i] * scale * w[i];
}

void add(const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  for (; i < n; ++i) y[i] = a[i] + b[i];
}

void mul(const float* a, const float* b, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  for (; i < n; ++i) y[i] = a[i] * b[i];
}

// e^x for x in about [-87, 88]: 2^n * p(r) with r = x - n ln2 in [-ln2/2, ln2/2]
// and a degree-6 Taylor polynomial (relative error below 2e-7 there).
inline __m256 exp_ps(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860677e-6f), r);
  __m256 p = _mm256_set1_ps(1.0f / 720);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

void silu(const float* x, float* y, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_setzero_ps(), v));
    _mm256_storeu_ps(y + i, _mm256_div_ps(v, _mm256_add_ps(one, e)));
  }
  for (; i < n; ++i) y[i] = x[i] / (1.0f + __builtin_expf(-x[i]));
}

void axpy(float a, const float* x, float* y, int64_t n) {
  const __m256 va = _mm256_set1_ps(a);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
  for (; i < n; ++i) y[i] += a * x[i];
}

float sum(const float* x, int64_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x + i));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + i + 8));
    s2 = _mm256_add_ps(s2, _mm256_loadu_ps(x + i + 16));
    s3 = _mm256_add_ps(s3, _mm256_loadu_ps(x + i + 24));
  }
  float s = hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
  for (; i < n; ++i) s += x[i];
  return s;
}

// 10 chains: FMA latency 4-5 cycles x 2 ports, in 12 of the 16 registers.
double fma_chains(int64_t rounds, float* sink) {
  constexpr int kChains = 10;
  const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(1e-3f);
  __m256 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm256_set1_ps(static_cast<float>(i));
  for (int64_t r = 0; r < rounds; ++r)
    for (int i = 0; i < kChains; ++i) a[i] = _mm256_fmadd_ps(a[i], m, c);
  __m256 s = a[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_ps(s, a[i]);
  *sink = hsum(s);
  return 2.0 * 8 * kChains * static_cast<double>(rounds);
}

constexpr CpuKernels kAvx2 = {
    "avx2", gemv_q4k_q8, quantize_q8k, nullptr, gemv_f32, rms_norm, add, mul, silu, dot, axpy, sum,
    fma_chains,
};

}  // namespace

const CpuKernels& avx2_kernels() { return kAvx2; }

}  // namespace bricklayer
