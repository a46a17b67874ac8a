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
  if (c.tp < 1 || c.tp_rank < 0 || c.tp_rank >= c.tp) return "--tp must be > 0";
  if (c.heads % c.tp != 0 || c.kv_heads % c.tp != 0)
    return "--tp " + std::to_string(c.tp) + " must divide --heads " + std::to_string(c.heads) +
           " and --kv-heads " + std::to_string(c.kv_heads);
  if (c.ffn % c.tp != 0)
    return "--tp " + std::to_string(c.tp) + " must divide --ffn " + std::to_string(c.ffn);
  if (c.weights == WeightType::Q4K && c.tp > 1 && (c.q_dim() % kQK != 0 || c.rank_ffn() % kQK != 0))
    return "--tp " + std::to_string(c.tp) +
           ": each rank's share of hidden and of --ffn must be a multiple of 256 for q4k "
           "weights (the output and down projections are split along whole Q4_K blocks)";
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

// The [row0, row0 + rows) x [col0, col0 + cols) part of a rows_all x
// cols_all matrix: each row comes from its own stream over all cols_all
// values, and Q4_K quantises 256-value blocks on their own, so a tensor-
// parallel rank's slice is bit for bit that part of the whole matrix.
struct Slice {
  int64_t row0, rows, col0, cols;
};

Matrix make_matrix(WeightType type, int64_t cols_all, const Slice& part, float amplitude,
                   uint64_t seed, uint64_t id, ThreadPool& pool) {
  Matrix m;
  m.type = type;
  m.rows = part.rows;
  m.cols = part.cols;
  const int64_t cols = part.cols;
  if (type == WeightType::Q4K) {
    m.q4k.resize(static_cast<size_t>(part.rows * (cols / kQK)));
  } else {
    m.f32.resize(static_cast<size_t>(part.rows * cols));
  }
  pool.parallel_for(part.rows, 64, [&](int64_t r0, int64_t r1) {
    std::vector<float> row(static_cast<size_t>(cols_all));
    for (int64_t r = r0; r < r1; ++r) {
      Rng rng{stream_seed(seed, id, static_cast<uint64_t>(part.row0 + r))};
      for (auto& v : row) v = amplitude * rng.uniform();
      const float* kept = row.data() + part.col0;
      if (type == WeightType::Q4K) {
        quantize_row_q4k(kept, m.q4k.data() + r * (cols / kQK), cols);
      } else {
        std::copy(kept, kept + cols, m.f32.begin() + r * cols);
      }
    }
  });
  return m;
}

Matrix make_matrix(WeightType type, int64_t rows, int64_t cols, float amplitude, uint64_t seed,
                   uint64_t id, ThreadPool& pool) {
  return make_matrix(type, cols, Slice{0, rows, 0, cols}, amplitude, seed, id, pool);
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
  const int64_t h = cfg.hidden, f = cfg.ffn;
  // This rank's slices (all of it at tp 1): rows of Q, K, V, gate and up;
  // input columns of the output and down projections.
  const int64_t q = cfg.q_dim(), kv = cfg.kv_dim(), fr = cfg.rank_ffn();
  const Slice q_rows{cfg.tp_rank * q, q, 0, h}, kv_rows{cfg.tp_rank * kv, kv, 0, h};
  const Slice ffn_rows{cfg.tp_rank * fr, fr, 0, h};
  const Slice o_cols{0, h, cfg.tp_rank * q, q}, down_cols{0, h, cfg.tp_rank * fr, fr};
  // Uniform(-a, a) has variance a^2/3: a = sqrt(3/cols) keeps outputs near unit scale.
  auto amp = [](int64_t cols) { return std::sqrt(3.0f / static_cast<float>(cols)); };
  uint64_t id = 0;
  m.tok_embd = make_matrix(t, cfg.vocab, h, 1.0f, cfg.seed, id++, pool);
  for (int l = 0; l < cfg.layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = make_norm(h, cfg.seed, id++);
    lw.wq = make_matrix(t, h, q_rows, amp(h), cfg.seed, id++, pool);
    lw.wk = make_matrix(t, h, kv_rows, amp(h), cfg.seed, id++, pool);
    lw.wv = make_matrix(t, h, kv_rows, amp(h), cfg.seed, id++, pool);
    lw.wo = make_matrix(t, h, o_cols, amp(h), cfg.seed, id++, pool);
    lw.ffn_norm = make_norm(h, cfg.seed, id++);
    lw.w_gate = make_matrix(t, h, ffn_rows, amp(h), cfg.seed, id++, pool);
    lw.w_up = make_matrix(t, h, ffn_rows, amp(h), cfg.seed, id++, pool);
    lw.w_down = make_matrix(t, f, down_cols, amp(f), cfg.seed, id++, pool);
    m.layers.push_back(std::move(lw));
  }
  m.out_norm = make_norm(h, cfg.seed, id++);
  m.lm_head = make_matrix(t, cfg.vocab, h, amp(h), cfg.seed, id++, pool);
  return m;
}

}  // namespace bricklayer
