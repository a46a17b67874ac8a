// AVX-512 (F/BW/VL/DQ) kernels; this file alone is compiled with the AVX-512 flags.
#include <immintrin.h>

#include "kernels/cpu_kernels.h"
#include "kernels/gemv_tiles.h"
#include "kernels/q4k_simd.h"

namespace bricklayer {
namespace {

inline float half(uint16_t h) { return _cvtsh_ss(h); }

inline float hsum128(__m128 s) {
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// vpshufb pattern over 8 int16 scales broadcast to every 128-bit lane:
// lanes 0-1 (int16 0..15) pick scale a, lanes 2-3 pick scale b. One in-lane
// shuffle each, cheaper than a cross-lane vpermw (2 uops on Skylake-SP).
inline __m512i pair_index(int a, int b) {
  const auto word = [](int j) { return static_cast<int16_t>((2 * j + 1) << 8 | 2 * j); };
  return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(word(a))),
                            _mm256_set1_epi16(word(b)), 1);
}

// One 64-byte vector of qs holds two chunks: its low nibbles are sub-blocks
// (2c, 2c+2) and its high nibbles (2c+1, 2c+3); the Q8_K nibble order puts
// the matching activations in one straight 64-byte load each.
struct RowKernel {
  __m512i m4 = _mm512_set1_epi8(0x0f);
  __m512i i02 = pair_index(0, 2), i13 = pair_index(1, 3), i46 = pair_index(4, 6),
          i57 = pair_index(5, 7);

  inline float dot_row(const BlockQ4K* w, const BlockQ8K* x, int64_t nb) const {
    __m512 acc = _mm512_setzero_ps();
    __m128 acc_min = _mm_setzero_ps();
    for (int64_t b = 0; b < nb; ++b) {
      const BlockQ4K& blk = w[b];
      const BlockQ8K& q8 = x[b];
      prefetch_block_ahead(&blk);
      uint64_t sc, mn;
      unpack_scales(blk.scales, &sc, &mn);
      const __m512i sc16 = _mm512_broadcast_i32x4(
          _mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<int64_t>(sc))));
      const __m512i q0 = _mm512_loadu_si512(blk.qs);
      const __m512i q1 = _mm512_loadu_si512(blk.qs + 64);
      const __m512i lo0 = _mm512_and_si512(q0, m4);
      const __m512i hi0 = _mm512_and_si512(_mm512_srli_epi16(q0, 4), m4);
      const __m512i lo1 = _mm512_and_si512(q1, m4);
      const __m512i hi1 = _mm512_and_si512(_mm512_srli_epi16(q1, 4), m4);
      __m512i p0 = _mm512_maddubs_epi16(lo0, _mm512_loadu_si512(q8.qs));
      __m512i p1 = _mm512_maddubs_epi16(hi0, _mm512_loadu_si512(q8.qs + 64));
      __m512i p2 = _mm512_maddubs_epi16(lo1, _mm512_loadu_si512(q8.qs + 128));
      __m512i p3 = _mm512_maddubs_epi16(hi1, _mm512_loadu_si512(q8.qs + 192));
      p0 = _mm512_madd_epi16(p0, _mm512_shuffle_epi8(sc16, i02));
      p1 = _mm512_madd_epi16(p1, _mm512_shuffle_epi8(sc16, i13));
      p2 = _mm512_madd_epi16(p2, _mm512_shuffle_epi8(sc16, i46));
      p3 = _mm512_madd_epi16(p3, _mm512_shuffle_epi8(sc16, i57));
      const __m512i isum = _mm512_add_epi32(_mm512_add_epi32(p0, p1), _mm512_add_epi32(p2, p3));
      acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_set1_ps(half(blk.d) * q8.d), acc);
      const __m128i mn16 = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(static_cast<int64_t>(mn)));
      const __m128i bs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q8.bsums));
      acc_min = _mm_fmadd_ps(_mm_cvtepi32_ps(_mm_madd_epi16(mn16, bs)),
                             _mm_set1_ps(half(blk.dmin) * q8.d), acc_min);
    }
    return _mm512_reduce_add_ps(acc) - hsum128(acc_min);
  }
};

void gemv_q4k_q8(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const BlockQ8K* x, int m,
                 float* y, int64_t ldy) {
  const RowKernel k;
  const GemvRow shape = {nb * kQK, nb * static_cast<int64_t>(sizeof(BlockQ4K)), m,
                         nb * static_cast<int64_t>(sizeof(BlockQ8K))};
  tiled_rows(r0, r1, shape, [&](int64_t r) {
    for (int t = 0; t < m; ++t) y[t * ldy + r] = k.dot_row(w + r * nb, x + t * nb, nb);
  });
}

// Q8_K as quantize_row_q8k computes it, 16 values at a time: the same float
// operations (x * 127/amax, clamp, +-0.5, truncate), so the same bits. Natural
// sub-block j goes to nibble-order slot kSlot[j] (q4k_format.h).
void quantize_q8k(const float* x, BlockQ8K* y, int64_t n) {
  constexpr int kSlot[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  const __m512 half_v = _mm512_set1_ps(0.5f), lim = _mm512_set1_ps(127.0f);
  for (int64_t b = 0; b < n / 256; ++b) {
    const float* s = x + b * 256;
    __m512 mx = _mm512_setzero_ps();
    for (int i = 0; i < 256; i += 16) mx = _mm512_max_ps(mx, _mm512_abs_ps(_mm512_loadu_ps(s + i)));
    const float amax = _mm512_reduce_max_ps(mx);
    BlockQ8K& out = y[b];
    out.d = amax / 127.0f;
    const __m512 inv = _mm512_set1_ps(amax > 0 ? 127.0f / amax : 0.0f);
    for (int j = 0; j < 8; ++j) {
      __m512i q[2];
      for (int h = 0; h < 2; ++h) {
        __m512 v = _mm512_mul_ps(_mm512_loadu_ps(s + 32 * j + 16 * h), inv);
        v = _mm512_min_ps(_mm512_max_ps(v, _mm512_sub_ps(_mm512_setzero_ps(), lim)), lim);
        // +0.5 for v >= 0 (-0.0 included, as in the scalar code), else -0.5.
        const __mmask16 neg = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
        v = _mm512_add_ps(v, _mm512_mask_blend_ps(neg, half_v, _mm512_set1_ps(-0.5f)));
        q[h] = _mm512_cvttps_epi32(v);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out.qs + 32 * kSlot[j] + 16 * h),
                         _mm512_cvtepi32_epi8(q[h]));
      }
      out.bsums[j] = static_cast<int16_t>(_mm512_reduce_add_epi32(_mm512_add_epi32(q[0], q[1])));
    }
  }
}

inline __mmask16 tail_mask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1);
}

float dot(const float* a, const float* b, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
    s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
  }
  for (; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i), s0);
  }
  return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
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
  const __m512 vs = _mm512_set1_ps(1.0f / __builtin_sqrtf(ss / static_cast<float>(n) + eps));
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(k, x + i), vs);
    _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(v, _mm512_maskz_loadu_ps(k, w + i)));
  }
}

void add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i)));
  }
}

void mul(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, a + i), _mm512_maskz_loadu_ps(k, b + i)));
  }
}

// e^x as in the AVX2 file: 2^n * degree-6 polynomial, with vscalefps for 2^n.
inline __m512 exp_ps(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145752f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860677e-6f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

void silu(const float* x, float* y, int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    const __m512 v = _mm512_maskz_loadu_ps(k, x + i);
    const __m512 e = exp_ps(_mm512_sub_ps(_mm512_setzero_ps(), v));
    _mm512_mask_storeu_ps(y + i, k, _mm512_div_ps(v, _mm512_add_ps(one, e)));
  }
}

void axpy(float a, const float* x, float* y, int64_t n) {
  const __m512 va = _mm512_set1_ps(a);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = tail_mask(n - i);
    _mm512_mask_storeu_ps(y + i, k, _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(k, x + i), _mm512_maskz_loadu_ps(k, y + i)));
  }
}

float sum(const float* x, int64_t n) {
  __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    s0 = _mm512_add_ps(s0, _mm512_loadu_ps(x + i));
    s1 = _mm512_add_ps(s1, _mm512_loadu_ps(x + i + 16));
    s2 = _mm512_add_ps(s2, _mm512_loadu_ps(x + i + 32));
    s3 = _mm512_add_ps(s3, _mm512_loadu_ps(x + i + 48));
  }
  for (; i < n; i += 16) s0 = _mm512_add_ps(s0, _mm512_maskz_loadu_ps(tail_mask(n - i), x + i));
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
}

// 12 chains: FMA latency 4 cycles x 2 ports with headroom, in 14 of 32 registers.
double fma_chains(int64_t rounds, float* sink) {
  constexpr int kChains = 12;
  const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(1e-3f);
  __m512 a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int64_t r = 0; r < rounds; ++r)
    for (int i = 0; i < kChains; ++i) a[i] = _mm512_fmadd_ps(a[i], m, c);
  __m512 s = a[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, a[i]);
  *sink = _mm512_reduce_add_ps(s);
  return 2.0 * 16 * kChains * static_cast<double>(rounds);
}

constexpr CpuKernels kAvx512 = {
    "avx512", gemv_q4k_q8, quantize_q8k, nullptr, gemv_f32, rms_norm, add, mul, silu, dot,
    axpy, sum, fma_chains,
};

}  // namespace

const CpuKernels& avx512_kernels() { return kAvx512; }

}  // namespace bricklayer
