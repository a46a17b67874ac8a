// Reuse of quantised MulMat inputs: the Q8Cache itself, and the CPU backend
// giving the same bits as quantising before every projection.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu_backend.h"
#include "kernels/cpu_detect.h"
#include "kernels/executor.h"
#include "kernels/model.h"
#include "kernels/q4k.h"
#include "kernels/q8_cache.h"

namespace bricklayer {
namespace {

std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

bool same_blocks(const BlockQ8K* a, const BlockQ8K* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(BlockQ8K)) == 0;
}

TEST(Q8Cache, QuantisesOnceUntilInvalidated) {
  const int rows = 2;
  const int64_t k = 512;
  std::vector<float> x = random_vector(rows * k, 1);
  std::vector<BlockQ8K> expect(rows * k / kQK);
  for (int t = 0; t < rows; ++t) quantize_row_q8k(x.data() + t * k, expect.data() + t * k / kQK, k);

  Q8Cache c;
  EXPECT_TRUE(
      same_blocks(c.get(7, x.data(), rows, k, quantize_row_q8k), expect.data(), expect.size()));
  EXPECT_TRUE(
      same_blocks(c.get(7, x.data(), rows, k, quantize_row_q8k), expect.data(), expect.size()));
  EXPECT_EQ(c.quantizations(), 1);

  // Another tensor, or the same one with another shape, is quantised afresh.
  c.get(8, x.data(), rows, k, quantize_row_q8k);
  EXPECT_EQ(c.quantizations(), 2);
  c.get(8, x.data(), 1, k, quantize_row_q8k);
  EXPECT_EQ(c.quantizations(), 3);

  // Invalidating another tensor keeps the entry; invalidating this one drops it.
  c.invalidate(9);
  c.get(8, x.data(), 1, k, quantize_row_q8k);
  EXPECT_EQ(c.quantizations(), 3);
  x = random_vector(rows * k, 2);
  c.invalidate(8);
  const BlockQ8K* fresh = c.get(8, x.data(), 1, k, quantize_row_q8k);
  EXPECT_EQ(c.quantizations(), 4);
  std::vector<BlockQ8K> now(k / kQK);
  quantize_row_q8k(x.data(), now.data(), k);
  EXPECT_TRUE(same_blocks(fresh, now.data(), now.size()));

  c.clear();
  c.get(8, x.data(), 1, k, quantize_row_q8k);
  EXPECT_EQ(c.quantizations(), 5);
}

Config tiny() {
  return Config{.layers = 2, .hidden = 256, .heads = 2, .kv_heads = 1, .ffn = 512, .vocab = 64,
                .context = 8, .batch = 2, .weights = WeightType::Q4K, .seed = 3};
}

class CpuQ8Reuse : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    if (!simd_supported(GetParam(), detect_cpu())) GTEST_SKIP() << "CPU lacks this SIMD level";
    model_ = make_model(tiny(), pool_);
    backend_ = std::make_unique<CpuBackend>(kernels_for(GetParam()), pool_);
  }

  // What mul_mat must produce: its input read back, quantised now, one GEMV.
  std::vector<float> reference(const Graph& g, const Node& n) {
    const int m = g.rows();
    const int64_t nb = n.k / kQK;
    std::vector<float> x(static_cast<size_t>(m * n.k)), y(static_cast<size_t>(m * n.n));
    backend_->read(n.in[1], x.data(), m * n.k);
    std::vector<BlockQ8K> xq(static_cast<size_t>(m * nb));
    for (int t = 0; t < m; ++t) quantize_row_q8k(x.data() + t * n.k, xq.data() + t * nb, n.k);
    const auto* w = static_cast<const BlockQ4K*>(g.tensors[static_cast<size_t>(n.in[0])].host);
    kernels_for(GetParam()).gemv_q4k_q8(w, nb, 0, n.n, xq.data(), m, y.data(), n.n);
    return y;
  }

  std::vector<float> output(const Graph& g, const Node& n) {
    std::vector<float> y(static_cast<size_t>(g.rows() * n.n));
    backend_->read(n.out, y.data(), g.rows() * n.n);
    return y;
  }

  // Runs one step node by node; every MulMat must match its reference bit
  // for bit. Returns the number of MulMats.
  int step_checking_every_mul_mat(const Graph& g, int pos, const std::vector<int32_t>& tokens) {
    backend_->begin_step(g, Step{pos, tokens.data()});
    int mul_mats = 0;
    for (const Node& n : g.nodes) {
      dispatch_node(g, n, *backend_);
      if (n.op != Op::MulMat) continue;
      ++mul_mats;
      EXPECT_EQ(output(g, n), reference(g, n))
          << "MulMat into " << g.tensors[static_cast<size_t>(n.out)].name;
    }
    backend_->end_step(g);
    return mul_mats;
  }

  ThreadPool pool_{2};
  Model model_;
  std::unique_ptr<CpuBackend> backend_;
};

// Q, K, V share one quantisation and gate, up another: per layer 4 instead
// of 7 (Q, O, gate, down), plus the LM head; the results do not change.
TEST_P(CpuQ8Reuse, SameBitsAsQuantisingEveryProjection) {
  const Graph prefill = build_graph(model_, 3, 3);
  const Graph decode = build_graph(model_, 1, 3);
  backend_->prepare(prefill);
  backend_->prepare(decode);
  const int layers = tiny().layers;

  int64_t before = backend_->q8_cache().quantizations();
  EXPECT_EQ(step_checking_every_mul_mat(prefill, 0, {1, 2, 3, 4, 5, 6}), 7 * layers + 1);
  EXPECT_EQ(backend_->q8_cache().quantizations() - before, 4 * layers + 1);

  before = backend_->q8_cache().quantizations();
  EXPECT_EQ(step_checking_every_mul_mat(decode, 3, {7, 8}), 7 * layers + 1);
  EXPECT_EQ(backend_->q8_cache().quantizations() - before, 4 * layers + 1);
}

// An op that rewrites a tensor must drop its quantised copy: Q, then the FFN
// norm rewrites x_norm, then Q again must see the new x_norm.
TEST_P(CpuQ8Reuse, RewritingTheInputInvalidates) {
  const Graph g = build_graph(model_, 1, 1);
  backend_->prepare(g);
  const std::vector<int32_t> tokens{9, 10};
  backend_->begin_step(g, Step{0, tokens.data()});
  const auto [begin, end] = g.layers[0];
  const Node* attn_norm = nullptr;
  const Node* ffn_norm = nullptr;
  const Node* q = nullptr;
  for (size_t i = begin; i < end; ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::RmsNorm) (attn_norm ? ffn_norm : attn_norm) = &n;
    if (n.op == Op::MulMat && !q) q = &n;
  }
  ASSERT_TRUE(attn_norm && ffn_norm && q);
  dispatch_node(g, g.nodes[1], *backend_);  // embedding: x
  dispatch_node(g, *attn_norm, *backend_);
  dispatch_node(g, *q, *backend_);
  const std::vector<float> first = output(g, *q);
  dispatch_node(g, *ffn_norm, *backend_);  // same x, other norm weights
  dispatch_node(g, *q, *backend_);
  EXPECT_NE(output(g, *q), first);
  EXPECT_EQ(output(g, *q), reference(g, *q));
}

INSTANTIATE_TEST_SUITE_P(Levels, CpuQ8Reuse, ::testing::Values(SimdLevel::Avx2, SimdLevel::Avx512),
                         [](const auto& info) { return std::string(simd_name(info.param)); });

}  // namespace
}  // namespace bricklayer
