// Config validation and seeded weight generation, quantized row by row.
#include "kernels/model.h"

#include <algorithm>
#include <cmath>

#include "kernels/q4k.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

std::string validate(const Config& c) {
  auto positive = [](int v) { return v > 0; };
  if (!positive(c.layers)) return "--layers must be > 0";
  if (!positive(c.hidden)) return "--hidden must be > 0";
  if (!positive(c.heads)) return "--heads must be > 0";
  if (!positive(c.kv_heads)) return "--kv-heads must be > 0";
  if (!positive(c.ffn)) return "--ffn must be > 0";
  if (!positive(c.vocab)) return "--vocab must be > 0";
  if (!positive(c.context)) return "--context must be > 0";
  if (!positive(c.batch)) return "--batch must be > 0";
  if (c.hidden % c.heads != 0)
    return "--hidden " + std::to_string(c.hidden) + " is not divisible by --heads " +
           std::to_string(c.heads);
  if (c.heads % c.kv_heads != 0)
    return "--heads " + std::to_string(c.heads) + " is not divisible by --kv-heads " +
           std::to_string(c.kv_heads);
  if (c.head_dim() % 2 != 0) return "head dimension (hidden/heads) must be even for RoPE";
  if (c.weights == WeightType::Q4K) {
    if (c.hidden % kQK != 0)
      return "--hidden " + std::to_string(c.hidden) + " must be a multiple of 256 for q4k weights";
    if (c.ffn % kQK != 0)
      return "--ffn " + std::to_string(c.ffn) + " must be a multiple of 256 for q4k weights";
  }
  return {};
}

void Matrix::row(int64_t r, float* out) const {
  if (type == WeightType::Q4K) {
    dequantize_row_q4k(q4k.data() + r * (cols / kQK), out, cols);
  } else {
    for (int64_t i = 0; i < cols; ++i) out[i] = f32[r * cols + i];
  }
}

int64_t Model::weight_bytes_per_token() const {
  int64_t total = lm_head.bytes();
  for (const auto& l : layers) {
    total += l.wq.bytes() + l.wk.bytes() + l.wv.bytes() + l.wo.bytes() + l.w_gate.bytes() +
             l.w_up.bytes() + l.w_down.bytes();
  }
  return total;
}

namespace {

// splitmix64: a tiny, good-enough generator; one stream per (matrix, row)
// keeps the weights independent of how rows are split across threads.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f; }
};

uint64_t stream_seed(uint64_t seed, uint64_t matrix, uint64_t row) {
  Rng r{seed ^ (matrix * 0x632be59bd9b4e019ull) ^ (row * 0x85ebca77c2b2ae63ull)};
  return r.next();
}

Matrix make_matrix(WeightType type, int64_t rows, int64_t cols, float amplitude, uint64_t seed,
                   uint64_t id, ThreadPool& pool) {
  Matrix m;
  m.type = type;
  m.rows = rows;
  m.cols = cols;
  if (type == WeightType::Q4K) {
    m.q4k.resize(static_cast<size_t>(rows * (cols / kQK)));
  } else {
    m.f32.resize(static_cast<size_t>(rows * cols));
  }
  pool.parallel_for(rows, 64, [&](int64_t r0, int64_t r1) {
    std::vector<float> row(static_cast<size_t>(cols));
    for (int64_t r = r0; r < r1; ++r) {
      Rng rng{stream_seed(seed, id, static_cast<uint64_t>(r))};
      for (auto& v : row) v = amplitude * rng.uniform();
      if (type == WeightType::Q4K) {
        quantize_row_q4k(row.data(), m.q4k.data() + r * (cols / kQK), cols);
      } else {
        std::copy(row.begin(), row.end(), m.f32.begin() + r * cols);
      }
    }
  });
  return m;
}

std::vector<float> make_norm(int64_t n, uint64_t seed, uint64_t id) {
  Rng rng{stream_seed(seed, id, 0)};
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = 1.0f + 0.1f * rng.uniform();
  return v;
}

}  // namespace

Model make_model(const Config& cfg, ThreadPool& pool) {
  Model m;
  m.cfg = cfg;
  const WeightType t = cfg.weights;
  const int64_t h = cfg.hidden, kv = cfg.kv_dim(), f = cfg.ffn;
  // Uniform(-a, a) has variance a^2/3: a = sqrt(3/cols) keeps outputs near unit scale.
  auto amp = [](int64_t cols) { return std::sqrt(3.0f / static_cast<float>(cols)); };
  uint64_t id = 0;
  m.tok_embd = make_matrix(t, cfg.vocab, h, 1.0f, cfg.seed, id++, pool);
  for (int l = 0; l < cfg.layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = make_norm(h, cfg.seed, id++);
    lw.wq = make_matrix(t, h, h, amp(h), cfg.seed, id++, pool);
    lw.wk = make_matrix(t, kv, h, amp(h), cfg.seed, id++, pool);
    lw.wv = make_matrix(t, kv, h, amp(h), cfg.seed, id++, pool);
    lw.wo = make_matrix(t, h, h, amp(h), cfg.seed, id++, pool);
    lw.ffn_norm = make_norm(h, cfg.seed, id++);
    lw.w_gate = make_matrix(t, f, h, amp(h), cfg.seed, id++, pool);
    lw.w_up = make_matrix(t, f, h, amp(h), cfg.seed, id++, pool);
    lw.w_down = make_matrix(t, h, f, amp(f), cfg.seed, id++, pool);
    m.layers.push_back(std::move(lw));
  }
  m.out_norm = make_norm(h, cfg.seed, id++);
  m.lm_head = make_matrix(t, cfg.vocab, h, amp(h), cfg.seed, id++, pool);
  return m;
}

}  // namespace bricklayer
