// AVX2 and AVX-512 kernel tables against the scalar reference (skipped where the CPU lacks them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu_detect.h"
#include "kernels/q4k.h"

namespace bricklayer {
namespace {

std::vector<float> random_vector(size_t n, uint32_t seed, float scale = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

class Simd : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    if (!simd_supported(GetParam(), detect_cpu())) GTEST_SKIP() << "CPU lacks this SIMD level";
  }
  const CpuKernels& k() const { return kernels_for(GetParam()); }
  const CpuKernels& ref() const { return scalar_kernels(); }
};

// Integer sums are exact in both; only the float accumulation order differs:
// tolerance 1e-5 of the sum of |terms|.
TEST_P(Simd, GemvQ4kQ8MatchesScalarQ8Reference) {
  const int rows = 37, nb = 6, m = 3;
  std::vector<float> w = random_vector(static_cast<size_t>(rows) * nb * 256, 1);
  std::vector<float> x = random_vector(static_cast<size_t>(m) * nb * 256, 2, 3);
  std::vector<BlockQ4K> wq(static_cast<size_t>(rows * nb));
  std::vector<BlockQ8K> xq(static_cast<size_t>(m * nb));
  quantize_row_q4k(w.data(), wq.data(), static_cast<int64_t>(w.size()));
  for (int t = 0; t < m; ++t) quantize_row_q8k(x.data() + t * nb * 256, xq.data() + t * nb, nb * 256);
  std::vector<float> y(static_cast<size_t>(m * rows), -1.0f);
  // Two calls over a split range, as the thread pool does.
  k().gemv_q4k_q8(wq.data(), nb, 0, 20, xq.data(), m, y.data(), rows);
  k().gemv_q4k_q8(wq.data(), nb, 20, rows, xq.data(), m, y.data(), rows);
  std::vector<float> wd(w.size()), xd(x.size());
  dequantize_row_q4k(wq.data(), wd.data(), static_cast<int64_t>(w.size()));
  for (int t = 0; t < m; ++t) dequantize_row_q8k(xq.data() + t * nb, xd.data() + t * nb * 256, nb * 256);
  for (int t = 0; t < m; ++t) {
    for (int r = 0; r < rows; ++r) {
      const float expect = dot_q4k_q8k_ref(wq.data() + r * nb, xq.data() + t * nb, nb);
      double mag = 0;
      for (int i = 0; i < nb * 256; ++i) mag += std::fabs(wd[static_cast<size_t>(r * nb * 256 + i)] * xd[static_cast<size_t>(t * nb * 256 + i)]);
      ASSERT_NEAR(y[static_cast<size_t>(t * rows + r)], expect, 1e-5 * mag + 1e-6) << "row " << r << " token " << t;
    }
  }
}

// Against the exact f32 product: the difference is the Q8 rounding of the
// activations (|e_i| <= d/2), bounded by d/2 * sum |w_i|.
TEST_P(Simd, GemvQ4kQ8CloseToF32Activations) {
  const int rows = 8, nb = 4;
  std::vector<float> w = random_vector(static_cast<size_t>(rows) * nb * 256, 3);
  std::vector<float> x = random_vector(static_cast<size_t>(nb) * 256, 4);
  std::vector<BlockQ4K> wq(static_cast<size_t>(rows * nb));
  std::vector<BlockQ8K> xq(static_cast<size_t>(nb));
  quantize_row_q4k(w.data(), wq.data(), static_cast<int64_t>(w.size()));
  quantize_row_q8k(x.data(), xq.data(), nb * 256);
  std::vector<float> y(rows), y_ref(rows);
  k().gemv_q4k_q8(wq.data(), nb, 0, rows, xq.data(), 1, y.data(), rows);
  ref().gemv_q4k_f32(wq.data(), nb, 0, rows, x.data(), 1, y_ref.data(), rows);
  std::vector<float> wd(w.size());
  dequantize_row_q4k(wq.data(), wd.data(), static_cast<int64_t>(w.size()));
  for (int r = 0; r < rows; ++r) {
    double bound = 0;
    for (int i = 0; i < nb * 256; ++i) {
      bound += std::fabs(wd[static_cast<size_t>(r * nb * 256 + i)]) * xq[static_cast<size_t>(i / 256)].d * 0.5;
    }
    EXPECT_NEAR(y[static_cast<size_t>(r)], y_ref[static_cast<size_t>(r)], bound + 1e-4);
  }
}

// f32 kernels: relative tolerance 1e-5 of the sum of |terms| (reordered sums);
// sizes are odd so the vector tails run.
// The SIMD quantisers replace quantize_row_q8k in the backend: same bits,
// including rounding ties (values that land on k + 0.5), -0.0, zeros, a
// block at the clamp and an all-zero block.
TEST_P(Simd, QuantizeQ8kMatchesScalarBitForBit) {
  const int nb = 6;
  std::vector<float> x = random_vector(static_cast<size_t>(nb) * 256, 12, 5);
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(256 + i)] = 0.5f * static_cast<float>(i - 127);  // ties
  x[256 + 3] = -0.0f;
  for (int i = 0; i < 256; ++i) x[static_cast<size_t>(512 + i)] = 0.0f;
  x[768] = 1e30f;  // the rest of this block rounds to 0
  x[1024 + 5] = -3e-38f;
  const int sizes[] = {256, nb * 256};
  for (int n : sizes) {
    std::vector<BlockQ8K> got(static_cast<size_t>(n / 256)), want(got.size());
    std::memset(got.data(), 0x5a, got.size() * sizeof(BlockQ8K));
    std::memset(want.data(), 0x5a, want.size() * sizeof(BlockQ8K));
    k().quantize_q8k(x.data(), got.data(), n);
    quantize_row_q8k(x.data(), want.data(), n);
    for (size_t b = 0; b < got.size(); ++b) {
      EXPECT_EQ(std::memcmp(&got[b], &want[b], sizeof(BlockQ8K)), 0) << "block " << b;
    }
  }
  EXPECT_EQ(ref().quantize_q8k, &quantize_row_q8k);
}

TEST_P(Simd, GemvF32) {
  const int rows = 13, kk = 1000, m = 2;
  auto w = random_vector(static_cast<size_t>(rows * kk), 5), x = random_vector(static_cast<size_t>(m * kk), 6);
  std::vector<float> y(static_cast<size_t>(m * rows)), y_ref(y.size());
  k().gemv_f32(w.data(), kk, 0, rows, x.data(), m, y.data(), rows);
  ref().gemv_f32(w.data(), kk, 0, rows, x.data(), m, y_ref.data(), rows);
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], y_ref[i], 1e-5 * kk);
}

TEST_P(Simd, DotAxpySum) {
  for (int n : {1, 7, 16, 31, 128, 1001}) {
    auto a = random_vector(static_cast<size_t>(n), 7), b = random_vector(static_cast<size_t>(n), 8);
    EXPECT_NEAR(k().dot(a.data(), b.data(), n), ref().dot(a.data(), b.data(), n), 1e-5 * n);
    EXPECT_NEAR(k().sum(a.data(), n), ref().sum(a.data(), n), 1e-5 * n);
    auto y = b, y_ref = b;
    k().axpy(0.75f, a.data(), y.data(), n);
    ref().axpy(0.75f, a.data(), y_ref.data(), n);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(y[static_cast<size_t>(i)], y_ref[static_cast<size_t>(i)], 1e-6);
  }
}

TEST_P(Simd, RmsNormAddMul) {
  const int n = 1030;
  auto x = random_vector(n, 9, 4), w = random_vector(n, 10), b = random_vector(n, 11);
  std::vector<float> y(n), y_ref(n);
  k().rms_norm(x.data(), w.data(), y.data(), n, 1e-5f);
  ref().rms_norm(x.data(), w.data(), y_ref.data(), n, 1e-5f);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(y[static_cast<size_t>(i)], y_ref[static_cast<size_t>(i)], 1e-5);
  k().add(x.data(), b.data(), y.data(), n);
  ref().add(x.data(), b.data(), y_ref.data(), n);
  EXPECT_EQ(y, y_ref);  // one rounding each: bit-exact
  k().mul(x.data(), b.data(), y.data(), n);
  ref().mul(x.data(), b.data(), y_ref.data(), n);
  EXPECT_EQ(y, y_ref);
}

// The vector exp is a polynomial: relative error 1e-6 against libm's expf,
// over a range that covers saturation on both sides.
TEST_P(Simd, Silu) {
  const int n = 2001;
  std::vector<float> x(n), y(n), y_ref(n);
  for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = -100.0f + 0.1f * static_cast<float>(i);
  k().silu(x.data(), y.data(), n);
  ref().silu(x.data(), y_ref.data(), n);
  for (int i = 0; i < n; ++i) {
    const float e = y_ref[static_cast<size_t>(i)];
    EXPECT_NEAR(y[static_cast<size_t>(i)], e, 1e-6f * std::fabs(e) + 1e-30f) << "x=" << x[static_cast<size_t>(i)];
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, Simd, ::testing::Values(SimdLevel::Avx2, SimdLevel::Avx512),
                         [](const auto& info) { return std::string(simd_name(info.param)); });

}  // namespace
}  // namespace bricklayer
