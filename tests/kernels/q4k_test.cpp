// Q4_K and Q8_K formats: layout, fp16, quantize/dequantize bounds, reference dots.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/fp16.h"
#include "kernels/q4k.h"

namespace bricklayer {
namespace {

std::vector<float> random_vector(size_t n, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

TEST(Fp16, RoundTripsExactValuesAndRoundsToNearest) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f}) {
    EXPECT_EQ(half_to_float(float_to_half(f)), f) << f;
  }
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(1e6f))));
  // Every half converts to float and back to itself (finite values).
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    ASSERT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h);
  }
  // Relative error of rounding a normal value is at most 2^-11.
  for (float f : random_vector(1000, 1, 1e-3f, 1e3f)) {
    EXPECT_LE(std::fabs(half_to_float(float_to_half(f)) - f), std::ldexp(f, -11));
  }
}

TEST(Q4K, ScalePackingRoundTrips) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 1000; ++iter) {
    uint8_t sc[8], mn[8], packed[12], sc2[8], mn2[8];
    for (int j = 0; j < 8; ++j) {
      sc[j] = static_cast<uint8_t>(rng() % 64);
      mn[j] = static_cast<uint8_t>(rng() % 64);
    }
    q4k_pack_scales(sc, mn, packed);
    q4k_unpack_scales(packed, sc2, mn2);
    for (int j = 0; j < 8; ++j) {
      ASSERT_EQ(sc[j], sc2[j]);
      ASSERT_EQ(mn[j], mn2[j]);
    }
  }
}

// llama.cpp's get_scale_min_k4 layout, spelled out by hand for one block.
TEST(Q4K, LayoutMatchesBlockQ4K) {
  BlockQ4K b{};
  b.scales[0] = 5 | (2 << 6);      // scale 0 = 5, scale 4 high bits = 2
  b.scales[4] = 9 | (1 << 6);      // min 0 = 9, min 4 high bits = 1
  b.scales[8] = 3 | (7 << 4);      // scale 4 low = 3, min 4 low = 7
  uint8_t sc[8], mn[8];
  q4k_unpack_scales(b.scales, sc, mn);
  EXPECT_EQ(sc[0], 5);
  EXPECT_EQ(mn[0], 9);
  EXPECT_EQ(sc[4], 3 | (2 << 4));
  EXPECT_EQ(mn[4], 7 | (1 << 4));
  // Nibbles: byte 0 of chunk 1 holds weight 64 (low) and weight 96 (high).
  b.d = float_to_half(1.0f);
  b.dmin = 0;
  for (auto& s : b.scales) s = 0;
  uint8_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[8] = {};
  q4k_pack_scales(ones, zeros, b.scales);
  b.qs[32] = 0x3a;
  float out[256];
  dequantize_row_q4k(&b, out, 256);
  EXPECT_EQ(out[64], 10.0f);
  EXPECT_EQ(out[96], 3.0f);
  EXPECT_EQ(out[65], 0.0f);
}

// Bound stated in q4k.h: per weight, max(step/2, dmin/2) with step = d*scale_j.
TEST(Q4K, QuantizeDequantizeWithinBound) {
  for (uint32_t seed = 0; seed < 8; ++seed) {
    const float lo = seed % 2 ? -3.0f : 0.5f;  // also all-positive rows (min clamped at 0)
    std::vector<float> x = random_vector(256 * 16, seed, lo, 3.0f);
    std::vector<BlockQ4K> q(16);
    std::vector<float> y(x.size());
    quantize_row_q4k(x.data(), q.data(), static_cast<int64_t>(x.size()));
    dequantize_row_q4k(q.data(), y.data(), static_cast<int64_t>(x.size()));
    double err2 = 0, sig2 = 0;
    for (size_t b = 0; b < q.size(); ++b) {
      uint8_t sc[8], mn[8];
      q4k_unpack_scales(q[b].scales, sc, mn);
      const float d = half_to_float(q[b].d), dmin = half_to_float(q[b].dmin);
      for (int i = 0; i < 256; ++i) {
        const size_t at = b * 256 + static_cast<size_t>(i);
        const float step = d * sc[i / 32];
        const float bound = std::max(step, dmin) * 0.5f * (1 + 1e-5f) + 1e-6f;
        ASSERT_LE(std::fabs(x[at] - y[at]), bound) << "block " << b << " weight " << i;
        err2 += (x[at] - y[at]) * (x[at] - y[at]);
        sig2 += x[at] * x[at];
      }
    }
    // 4.5 bits per weight: relative RMS error well under 10%.
    EXPECT_LT(std::sqrt(err2 / sig2), 0.1);
  }
}

TEST(Q4K, ConstantAndZeroRows) {
  std::vector<float> x(256, 0.0f), y(256);
  BlockQ4K q;
  quantize_row_q4k(x.data(), &q, 256);
  dequantize_row_q4k(&q, y.data(), 256);
  for (float v : y) EXPECT_EQ(v, 0.0f);
  std::fill(x.begin(), x.end(), -0.75f);
  quantize_row_q4k(x.data(), &q, 256);
  dequantize_row_q4k(&q, y.data(), 256);
  for (float v : y) EXPECT_NEAR(v, -0.75f, 0.75f / 63);
}

TEST(Q8K, RoundTripAndBlockSums) {
  std::vector<float> x = random_vector(512, 3, -2, 2), y(512);
  std::vector<BlockQ8K> q(2);
  quantize_row_q8k(x.data(), q.data(), 512);
  dequantize_row_q8k(q.data(), y.data(), 512);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_LE(std::fabs(x[i] - y[i]), q[i / 256].d * 0.5f + 1e-6f);
  }
  for (const auto& b : q) {
    for (int j = 0; j < 8; ++j) {
      int s = 0;
      for (int p = 0; p < 256; ++p) s += q8k_weight_index(p) / 32 == j ? b.qs[p] : 0;
      EXPECT_EQ(s, b.bsums[j]);
    }
  }
}

// The integer Q8_K dot equals the f32 dot of the dequantized operands.
TEST(Q4K, Q8DotMatchesDequantizedDot) {
  const int nb = 8;
  std::vector<float> w = random_vector(256 * nb, 11), x = random_vector(256 * nb, 12);
  std::vector<BlockQ4K> wq(nb);
  std::vector<BlockQ8K> xq(nb);
  quantize_row_q4k(w.data(), wq.data(), 256 * nb);
  quantize_row_q8k(x.data(), xq.data(), 256 * nb);
  std::vector<float> xd(x.size());
  dequantize_row_q8k(xq.data(), xd.data(), 256 * nb);
  const float exact = dot_q4k_f32_ref(wq.data(), xd.data(), nb);
  const float q8 = dot_q4k_q8k_ref(wq.data(), xq.data(), nb);
  EXPECT_NEAR(q8, exact, 1e-4f * (1 + std::fabs(exact)));
  // And against unquantized activations, within the Q8 rounding (|e| <= d/2 each).
  const float f32 = dot_q4k_f32_ref(wq.data(), x.data(), nb);
  EXPECT_NEAR(q8, f32, 0.02f * 256 * nb / 127.0f);
}

}  // namespace
}  // namespace bricklayer
