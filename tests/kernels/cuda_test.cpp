// CUDA backend against the scalar CPU reference (with the GPU's Q8_K activations), op by op;
// skips (GTEST_SKIP) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/cpu_backend.h"
#include "kernels/cuda/block_q8k_gpu.h"
#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/driver_api.h"
#include "kernels/cuda/embedded.h"
#include "kernels/engine.h"
#include "kernels/executor.h"
#include "kernels/fp16.h"
#include "kernels/q4k.h"

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

// The scalar kernels with the GPU's Q4_K arithmetic: activations quantised
// to Q8_K (quantize_row_q8k, which bl_quantize_q8k matches bit for bit) and
// integer dot products (dot_q4k_q8k_ref), as the SIMD tables do.
void gemv_q4k_q8_ref(const BlockQ4K* w, int64_t nb, int64_t r0, int64_t r1, const BlockQ8K* x,
                     int m, float* y, int64_t ldy) {
  for (int64_t r = r0; r < r1; ++r)
    for (int t = 0; t < m; ++t) y[t * ldy + r] = dot_q4k_q8k_ref(w + r * nb, x + t * nb, nb);
}

const CpuKernels& reference_kernels() {
  static const CpuKernels k = [] {
    CpuKernels table = scalar_kernels();
    table.gemv_q4k_q8 = gemv_q4k_q8_ref;
    table.quantize_q8k = quantize_row_q8k;
    return table;
  }();
  return k;
}

// Walks the prefill graph on both backends and compares every op's output
// right after it runs. Tolerance: 2e-3 of the tensor's largest magnitude
// (GPU reductions run in another order, __expf/sincosf are approximations).
void compare_op_by_op(const Config& config) {
  REQUIRE_GPU(gpu);
  ThreadPool pool(2);
  const Model model = make_model(config, pool);
  CpuBackend cpu(reference_kernels(), pool);
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

// The embedded module's kernels, launched one by one on device 0.
class Kernels {
 public:
  explicit Kernels(const cuda::DriverApi& api) : api_(api) {
    CUdevice dev = 0;
    ok(api_.cuInit(0));
    ok(api_.cuDeviceGet(&dev, 0));
    ok(api_.cuDevicePrimaryCtxRetain(&ctx_, dev));
    ok(api_.cuCtxSetCurrent(ctx_));
    ok(api_.cuModuleLoadData(&module_, bricklayer_kernels_ptx));
  }
  ~Kernels() {
    for (CUdeviceptr p : owned_) api_.cuMemFree(p);
    api_.cuModuleUnload(module_);
  }
  template <typename T>
  CUdeviceptr upload(const std::vector<T>& v) {
    CUdeviceptr p = 0;
    ok(api_.cuMemAlloc(&p, v.size() * sizeof(T)));
    ok(api_.cuMemcpyHtoD(p, v.data(), v.size() * sizeof(T)));
    owned_.push_back(p);
    return p;
  }
  template <typename T>
  std::vector<T> download(CUdeviceptr p, size_t count) {
    std::vector<T> v(count);
    ok(api_.cuMemcpyDtoH(v.data(), p, count * sizeof(T)));
    return v;
  }
  template <typename... Args>
  void launch(const char* name, unsigned gx, unsigned gy, Args... args) {
    CUfunction f = nullptr;
    ok(api_.cuModuleGetFunction(&f, module_, name));
    void* params[] = {static_cast<void*>(&args)...};
    ok(api_.cuLaunchKernel(f, gx, gy, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  }

 private:
  void ok(CUresult r) {
    if (r != CUDA_SUCCESS) throw std::runtime_error(cuda::error_text(api_, r));
  }
  const cuda::DriverApi& api_;
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  std::vector<CUdeviceptr> owned_;
};

// bl_quantize_q8k gives the CPU's Q8_K bit for bit, and bl_gemv_q4k the
// scalar dot_q4k_q8k_ref on those values within float reordering (1e-5 of
// the largest output): several tokens, rows not a multiple of the block's
// eight warps, blocks per row not a multiple of a warp's four.
TEST(Cuda, Q4KGemvMatchesQ8KReference) {
  REQUIRE_GPU(gpu);
  std::string why;
  Kernels k(*cuda::driver_api(&why));
  for (const auto& [rows, nb, tokens] : {std::tuple{37, 5, 3}, {64, 8, 1}, {9, 1, 2}}) {
    const int cols = nb * kQK;
    std::mt19937 rng(static_cast<unsigned>(rows * 131 + nb));
    std::vector<BlockQ4K> w(static_cast<size_t>(rows * nb));
    for (BlockQ4K& b : w) {
      b.d = float_to_half(std::uniform_real_distribution<float>(0.001f, 0.02f)(rng));
      b.dmin = float_to_half(std::uniform_real_distribution<float>(0.0f, 0.01f)(rng));
      for (auto& s : b.scales) s = static_cast<uint8_t>(rng());
      for (auto& q : b.qs) q = static_cast<uint8_t>(rng());
    }
    std::vector<float> x(static_cast<size_t>(tokens * cols));
    for (float& v : x) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
    x[3] = 0;  // exact zeros and a block of them quantise as the CPU does
    if (nb > 1) std::fill(x.begin() + kQK, x.begin() + 2 * kQK, 0.0f);
    const int blocks = tokens * nb;
    const CUdeviceptr dw = k.upload(w), dx = k.upload(x);
    const CUdeviceptr dq = k.upload(std::vector<BlockQ8KGpu>(static_cast<size_t>(blocks)));
    const CUdeviceptr dy = k.upload(std::vector<float>(static_cast<size_t>(tokens * rows), NAN));
    k.launch("bl_quantize_q8k", (blocks + 7) / 8, 1, dx, dq, blocks);
    k.launch("bl_gemv_q4k", (rows + 7) / 8, tokens, dw, dq, dy, rows, cols);

    std::vector<BlockQ8K> want(static_cast<size_t>(blocks));
    for (int t = 0; t < tokens; ++t)
      quantize_row_q8k(x.data() + t * cols, want.data() + t * nb, cols);
    const auto got = k.download<BlockQ8KGpu>(dq, want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(std::memcmp(got[i].qs, want[i].qs, kQK), 0) << "block " << i;
      ASSERT_EQ(std::memcmp(got[i].bsums, want[i].bsums, sizeof want[i].bsums), 0) << "block " << i;
      ASSERT_EQ(got[i].d, want[i].d) << "block " << i;
    }
    const auto y = k.download<float>(dy, static_cast<size_t>(tokens * rows));
    std::vector<float> ref(y.size());
    for (int t = 0; t < tokens; ++t)
      for (int r = 0; r < rows; ++r)
        ref[static_cast<size_t>(t * rows + r)] =
            dot_q4k_q8k_ref(w.data() + r * nb, want.data() + t * nb, nb);
    EXPECT_LT(max_rel_diff(y, ref), 1e-5) << rows << " rows, " << nb << " blocks, " << tokens;
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
  const int64_t eager_prefill = eager_backend->kernel_launches();
  const int64_t graph_prefill = graph_backend->kernel_launches();
  for (int i = 0; i < 6; ++i) {
    const std::vector<int32_t> next = {static_cast<int32_t>(10 + i), static_cast<int32_t>(20 + i)};
    eager.decode(next);
    graph.decode(next);
    ASSERT_LT(max_rel_diff(graph.last_logits(), eager.last_logits()), 1e-5) << "token " << i;
  }
  EXPECT_EQ(graph_backend->graph_launches(), 6);
  EXPECT_EQ(eager_backend->graph_launches(), 0);
  // The capture walk launched one step's kernels; eager launched six steps'.
  // A step is a kernel per op plus the Q8_K quantisations of GEMV inputs.
  const int64_t step = graph_backend->kernel_launches() - graph_prefill;
  EXPECT_GT(step, eager.decode_ops());
  EXPECT_EQ(eager_backend->kernel_launches() - eager_prefill, 6 * step);
}

TEST(Cuda, LogitsMatchReferenceAfterDecode) {
  REQUIRE_GPU(gpu);
  ThreadPool pool(2);
  const Model model = make_model(small(WeightType::Q4K), pool);
  CpuBackend cpu(reference_kernels(), pool);
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
