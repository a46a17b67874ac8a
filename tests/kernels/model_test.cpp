// The whole decoder on every CPU backend against a naive f32 reference, and decode == prefill.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "kernels/cpu_backend.h"
#include "kernels/cpu_detect.h"
#include "kernels/engine.h"
#include "reference_model.h"

namespace bricklayer {
namespace {

Config small_config(WeightType w) {
  return Config{.layers = 2, .hidden = 256, .heads = 4, .kv_heads = 2, .ffn = 512, .vocab = 300,
                .context = 16, .batch = 2, .weights = w, .seed = 5};
}

std::vector<int32_t> ids(int batch, int len, int salt) {
  std::vector<int32_t> v;
  for (int b = 0; b < batch; ++b)
    for (int t = 0; t < len; ++t) v.push_back((b * 97 + t * 31 + salt) % 300);
  return v;
}

// max |a - b| relative to max |b|; infinite if `a` holds a NaN or an
// infinity (std::max would skip a NaN).
double max_rel_diff(const float* a, const float* b, size_t n) {
  double diff = 0, mag = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    mag = std::max(mag, std::fabs(static_cast<double>(b[i])));
  }
  return diff / mag;
}

struct Case {
  SimdLevel level;
  WeightType weights;
  double tolerance;  // on max_rel_diff against the f32 reference
};

class ModelTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (!simd_supported(GetParam().level, detect_cpu())) GTEST_SKIP() << "CPU lacks this SIMD level";
  }
};

// Tolerances: f32 math in a different order: 1e-4. SIMD Q4_K paths quantize
// activations to 8 bits before each projection (about 0.4% per element),
// which compounds through 2 layers: 3e-2.
TEST_P(ModelTest, PrefillMatchesNaiveReference) {
  const Case& c = GetParam();
  ThreadPool pool(2);
  const Model model = make_model(small_config(c.weights), pool);
  CpuBackend backend(kernels_for(c.level), pool);
  Engine engine(model, backend, 6, Mode::Eager);
  const auto tokens = ids(2, 6, 1);
  engine.prefill(tokens, 6);
  for (int b = 0; b < 2; ++b) {
    const std::vector<int32_t> seq(tokens.begin() + b * 6, tokens.begin() + (b + 1) * 6);
    const auto ref = testing::reference_forward(model, seq);
    const float* got = engine.last_logits().data() + b * 300;
    EXPECT_LT(max_rel_diff(got, ref.data() + 5 * 300, 300), c.tolerance) << "sequence " << b;
  }
}

// Decoding token t after a prefill of t tokens gives the logits a prefill of
// t+1 tokens gives for its last position (same kernels, same order per row).
TEST_P(ModelTest, DecodeAfterPrefillEqualsLongerPrefill) {
  const Case& c = GetParam();
  ThreadPool pool(2);
  const Model model = make_model(small_config(c.weights), pool);
  const auto tokens = ids(2, 5, 3);
  std::vector<float> long_logits;
  {
    CpuBackend backend(kernels_for(c.level), pool);
    Engine engine(model, backend, 5, Mode::Eager);
    engine.prefill(tokens, 5);
    long_logits = engine.last_logits();
  }
  CpuBackend backend(kernels_for(c.level), pool);
  Engine engine(model, backend, 5, Mode::Eager);
  std::vector<int32_t> head, last;
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; t < 4; ++t) head.push_back(tokens[static_cast<size_t>(b * 5 + t)]);
    last.push_back(tokens[static_cast<size_t>(b * 5 + 4)]);
  }
  engine.prefill(head, 4);
  engine.decode(last);
  EXPECT_EQ(engine.pos(), 5);
  EXPECT_LT(max_rel_diff(engine.last_logits().data(), long_logits.data(), long_logits.size()), 1e-5);
  // And the reference agrees with both (sequence 0).
  const auto ref = testing::reference_forward(
      model, std::vector<int32_t>(tokens.begin(), tokens.begin() + 5));
  EXPECT_LT(max_rel_diff(engine.last_logits().data(), ref.data() + 4 * 300, 300), c.tolerance);
}

TEST_P(ModelTest, SameSeedSameWeightsAnyThreadCount) {
  ThreadPool one(1), two(2);
  const Config cfg = small_config(GetParam().weights);
  const Model a = make_model(cfg, one), b = make_model(cfg, two);
  std::vector<float> ra(512), rb(512);
  a.layers[1].w_down.row(7, ra.data());
  b.layers[1].w_down.row(7, rb.data());
  EXPECT_EQ(ra, rb);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, ModelTest,
    ::testing::Values(Case{SimdLevel::Scalar, WeightType::F32, 1e-4},
                      Case{SimdLevel::Scalar, WeightType::Q4K, 1e-4},
                      Case{SimdLevel::Avx2, WeightType::F32, 1e-4},
                      Case{SimdLevel::Avx2, WeightType::Q4K, 3e-2},
                      Case{SimdLevel::Avx512, WeightType::F32, 1e-4},
                      Case{SimdLevel::Avx512, WeightType::Q4K, 3e-2}),
    [](const auto& info) {
      return std::string(simd_name(info.param.level)) +
             (info.param.weights == WeightType::F32 ? "_f32" : "_q4k");
    });

TEST(Engine, RejectsFullContextAndBadTokens) {
  ThreadPool pool(1);
  const Model model = make_model(small_config(WeightType::F32), pool);
  CpuBackend backend(scalar_kernels(), pool);
  Engine engine(model, backend, 16, Mode::Eager);
  EXPECT_THROW(engine.prefill({1, 2, 3}, 1), std::invalid_argument);  // 2 sequences need 2 ids
  EXPECT_THROW(engine.prefill(ids(2, 17, 0), 17), std::invalid_argument);  // longer than max
  engine.prefill(ids(2, 16, 0), 16);
  EXPECT_THROW(engine.decode({1, 2}), std::length_error);
  EXPECT_THROW(engine.prefill({-1, 2}, 1), std::invalid_argument);
}

}  // namespace
}  // namespace bricklayer
