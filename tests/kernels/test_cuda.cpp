// CUDA backend against the scalar CPU reference, op by op; skips (GTEST_SKIP) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu_backend.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/embedded.h"
#include "kernels/engine.h"
#include "kernels/executor.h"

namespace bricklayer {
namespace {

std::unique_ptr<CudaBackend> cuda_or_skip(std::string* why) {
  auto b = CudaBackend::create(why);
  return b;
}

#define REQUIRE_GPU(var)                                              \
  std::string why_##var;                                              \
  auto var = cuda_or_skip(&why_##var);                                \
  if (!var) GTEST_SKIP() << "no CUDA device: " << why_##var

Config small(WeightType w) {
  return Config{.layers = 2, .hidden = 512, .heads = 8, .kv_heads = 2, .ffn = 1024,
                .vocab = 1000, .context = 32, .batch = 2, .weights = w};
}

// Infinite if `a` holds a NaN or an infinity (std::max would skip a NaN).
double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, mag = 1e-30;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    diff = std::max(diff, std::fabs(static_cast<double>(a[i]) - b[i]));
    mag = std::max(mag, std::fabs(static_cast<double>(b[i])));
  }
  return diff / mag;
}

// Runs without a GPU too: the embedded images are real nvcc output.
TEST(CudaImages, PtxAndFatbinAreEmbedded) {
  const std::string ptx(reinterpret_cast<const char*>(bricklayer_kernels_ptx),
                        bricklayer_kernels_ptx_size);
  EXPECT_NE(ptx.find(".entry bl_gemv_q4k"), std::string::npos);
  EXPECT_NE(ptx.find(".target sm_"), std::string::npos);
  EXPECT_EQ(bricklayer_kernels_ptx[bricklayer_kernels_ptx_size], 0);  // NUL for cuModuleLoadData
  ASSERT_GT(bricklayer_kernels_fatbin_size, 16u);
  uint32_t magic;
  std::memcpy(&magic, bricklayer_kernels_fatbin, 4);
  EXPECT_EQ(magic, 0xBA55ED50u);  // fatbin header magic
}

TEST(CudaDriver, MissingDriverIsAnErrorNotACrash) {
  std::string why;
  auto b = CudaBackend::create(&why);
  if (b) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(why.empty());
}

// Walks the prefill graph on both backends and compares every op's output
// right after it runs. Tolerance: 2e-3 of the tensor's largest magnitude
// (GPU reductions run in another order, __expf/sincosf are approximations).
void compare_op_by_op(const Config& config) {
  REQUIRE_GPU(gpu);
  ThreadPool pool(2);
  const Model model = make_model(config, pool);
  CpuBackend cpu(scalar_kernels(), pool);
  const Graph g = build_graph(model, 5, 5);
  cpu.prepare(g);
  gpu->prepare(g);
  std::vector<int32_t> tokens;
  for (int i = 0; i < g.rows(); ++i) tokens.push_back((i * 37 + 5) % config.vocab);
  const Step s{0, tokens.data()};
  cpu.begin_step(g, s);
  gpu->begin_step(g, s);
  for (const Node& n : g.nodes) {
    if (!dispatch_node(g, n, cpu)) continue;
    dispatch_node(g, n, *gpu);
    const Tensor& t = g.tensors[static_cast<size_t>(n.out)];
    const int64_t count = t.kind == TensorKind::KvCache ? t.rows * t.cols : g.rows() * t.cols;
    std::vector<float> a(static_cast<size_t>(count)), b(a.size());
    gpu->read(n.out, a.data(), count);
    cpu.read(n.out, b.data(), count);
    ASSERT_LT(max_rel_diff(a, b), 2e-3) << op_name(n.op) << " layer " << n.layer;
  }
}

TEST(Cuda, OpsMatchScalarReferenceQ4K) { compare_op_by_op(small(WeightType::Q4K)); }
TEST(Cuda, OpsMatchScalarReferenceF32) { compare_op_by_op(small(WeightType::F32)); }

// f32 allows sizes Q4_K does not: rows not a multiple of 4 (the GEMV's
// scalar path, not float4), a head size that is not a power of two, a
// vocabulary that leaves the last GEMV block partly idle.
TEST(Cuda, OpsMatchScalarReferenceF32OddSizes) {
  compare_op_by_op(Config{.layers = 1, .hidden = 264, .heads = 4, .kv_heads = 2, .ffn = 302,
                          .vocab = 997, .context = 24, .batch = 3, .weights = WeightType::F32});
}

// Graph replay gives the logits eager launches give, with one graph launch
// per token after the capture.
TEST(Cuda, GraphReplayMatchesEager) {
  REQUIRE_GPU(eager_backend);
  std::string why;
  auto graph_backend = CudaBackend::create(&why);
  ASSERT_TRUE(graph_backend) << why;
  ThreadPool pool(2);
  const Model model = make_model(small(WeightType::Q4K), pool);
  Engine eager(model, *eager_backend, 4, Mode::Eager);
  Engine graph(model, *graph_backend, 4, Mode::Graph);
  const std::vector<int32_t> prompt = {1, 2, 3, 4, 5, 6, 7, 8};
  eager.prefill(prompt, 4);
  graph.prefill(prompt, 4);
  for (int i = 0; i < 6; ++i) {
    const std::vector<int32_t> next = {static_cast<int32_t>(10 + i), static_cast<int32_t>(20 + i)};
    eager.decode(next);
    graph.decode(next);
    ASSERT_LT(max_rel_diff(graph.last_logits(), eager.last_logits()), 1e-5) << "token " << i;
  }
  EXPECT_EQ(graph_backend->graph_launches(), 6);
  EXPECT_EQ(eager_backend->graph_launches(), 0);
  // prefill + capture walk vs prefill + 6 eager walks
  EXPECT_EQ(graph_backend->kernel_launches(), 2 * eager.decode_ops());
  EXPECT_EQ(eager_backend->kernel_launches(), 7 * eager.decode_ops());
}

TEST(Cuda, LogitsMatchScalarAfterDecode) {
  REQUIRE_GPU(gpu);
  ThreadPool pool(2);
  const Model model = make_model(small(WeightType::Q4K), pool);
  CpuBackend cpu(scalar_kernels(), pool);
  Engine a(model, cpu, 3, Mode::Eager), b(model, *gpu, 3, Mode::Graph);
  const std::vector<int32_t> prompt = {7, 8, 9, 10, 11, 12};
  a.prefill(prompt, 3);
  b.prefill(prompt, 3);
  for (int i = 0; i < 4; ++i) {
    const auto next = a.argmax();
    a.decode(next);
    b.decode(next);
  }
  EXPECT_LT(max_rel_diff(b.last_logits(), a.last_logits()), 5e-3);
}

TEST(Cuda, ReadBandwidthProbeIsPositive) {
  REQUIRE_GPU(gpu);
  EXPECT_GT(gpu->measure_read_bandwidth(), 1.0);
}

}  // namespace
}  // namespace bricklayer
