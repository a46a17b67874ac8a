// CPU op implementations: row-parallel GEMV on the pool, per-(token, head) attention.
#include "kernels/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include <brickprof/brickprof.h>

#include "kernels/gemv_tiles.h"
#include "kernels/q4k.h"

namespace bricklayer {

void CpuBackend::FreeDeleter::operator()(void* p) const { std::free(p); }

CpuBackend::CpuBackend(const CpuKernels& kernels, ThreadPool& pool)
    : kernels_(kernels), pool_(pool) {}

CpuBackend::~CpuBackend() = default;

void CpuBackend::prepare(const Graph& g) {
  if (ptrs_.size() < g.tensors.size()) ptrs_.resize(g.tensors.size(), nullptr);
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const Tensor& t = g.tensors[i];
    if (ptrs_[i]) continue;
    if (t.kind == TensorKind::Weight || t.kind == TensorKind::Vector) {
      ptrs_[i] = const_cast<void*>(t.host);  // read-only, used in place
      reported_.add(t, t.host);
      continue;
    }
    const size_t bytes = (static_cast<size_t>(t.bytes()) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    owned_.emplace_back(p);
    ptrs_[i] = p;
    reported_.add(t, p);
  }
  q8_.clear();
  const int hd = g.cfg.head_dim();
  inv_freq_.resize(static_cast<size_t>(hd / 2));
  for (int i = 0; i < hd / 2; ++i) {
    inv_freq_[static_cast<size_t>(i)] =
        std::pow(g.cfg.rope_theta, -2.0f * static_cast<float>(i) / static_cast<float>(hd));
  }
}

void CpuBackend::begin_step(const Graph& g, const Step& s) {
  pos_ = s.pos;
  q8_.clear();
  std::memcpy(ptrs_[static_cast<size_t>(g.tokens)], s.tokens,
              static_cast<size_t>(g.rows()) * sizeof(int32_t));
}

void CpuBackend::read(int tensor, float* dst, int64_t count) {
  std::memcpy(dst, raw(tensor), static_cast<size_t>(count) * sizeof(float));
}

void CpuBackend::read_at(int tensor, int64_t offset, float* dst, int64_t count) {
  std::memcpy(dst, f32(tensor) + offset, static_cast<size_t>(count) * sizeof(float));
}

void CpuBackend::write_at(int tensor, int64_t offset, const float* src, int64_t count) {
  std::memcpy(output(tensor) + offset, src, static_cast<size_t>(count) * sizeof(float));
}

void CpuBackend::get_rows(const Graph& g, const Node& n) {
  const Tensor& table = g.tensors[static_cast<size_t>(n.in[0])];
  const auto* tokens = static_cast<const int32_t*>(raw(n.in[1]));
  float* out = output(n.out);
  for (int r = 0; r < g.rows(); ++r) {
    const int64_t row = tokens[r];
    if (table.type == WeightType::Q4K) {
      const auto* w = static_cast<const BlockQ4K*>(table.host);
      dequantize_row_q4k(w + row * (table.cols / kQK), out + r * n.n, n.n);
    } else {
      std::memcpy(out + r * n.n, static_cast<const float*>(table.host) + row * n.n,
                  static_cast<size_t>(n.n) * sizeof(float));
    }
  }
}

int64_t gemv_rows_per_chunk(int64_t rows, int threads) {
  return std::max<int64_t>(16, rows / (threads * 8));
}

namespace {

// One pool chunk of a GEMV, the macro tile, run by `rows` (gemv_tiles.h
// has its midi and micro tiles).
template <typename Rows>
void gemv_chunk(int64_t r0, int64_t r1, const GemvRow& shape, Rows rows) {
  if (!tiles_on_this_thread()) return rows(r0, r1);
  const uint64_t n = static_cast<uint64_t>(r1 - r0);
  BRICKPROF_TILE(BRICKPROF_TILE_MACRO, n * shape.elements(), n * shape.bytes());
  rows(r0, r1);
}

}  // namespace

bool tiles_on_this_thread() { return !ThreadPool::on_worker(); }

void CpuBackend::mul_mat(const Graph& g, const Node& n) {
  const Tensor& w = g.tensors[static_cast<size_t>(n.in[0])];
  const float* x = f32(n.in[1]);
  float* y = output(n.out);
  const int m = g.rows();
  const int64_t grain = gemv_rows_per_chunk(n.n, pool_.size());
  if (w.type == WeightType::Q4K) {
    const int64_t nb = n.k / kQK;
    const auto* wq = static_cast<const BlockQ4K*>(w.host);
    const int64_t q4k_bytes = nb * static_cast<int64_t>(sizeof(BlockQ4K));
    if (kernels_.gemv_q4k_q8) {
      const BlockQ8K* xq = q8_.get(n.in[1], x, m, n.k, kernels_.quantize_q8k);
      const GemvRow shape = {n.k, q4k_bytes, m, nb * static_cast<int64_t>(sizeof(BlockQ8K))};
      pool_.parallel_for(n.n, grain, [&](int64_t r0, int64_t r1) {
        gemv_chunk(r0, r1, shape, [&](int64_t a, int64_t b) {
          kernels_.gemv_q4k_q8(wq, nb, a, b, xq, m, y, n.n);
        });
      });
    } else {
      const GemvRow shape = {n.k, q4k_bytes, m, n.k * 4};
      pool_.parallel_for(n.n, grain, [&](int64_t r0, int64_t r1) {
        gemv_chunk(r0, r1, shape, [&](int64_t a, int64_t b) {
          kernels_.gemv_q4k_f32(wq, nb, a, b, x, m, y, n.n);
        });
      });
    }
  } else {
    const auto* wf = static_cast<const float*>(w.host);
    const GemvRow shape = {n.k, n.k * 4, m, n.k * 4};
    pool_.parallel_for(n.n, grain, [&](int64_t r0, int64_t r1) {
      gemv_chunk(r0, r1, shape,
                 [&](int64_t a, int64_t b) { kernels_.gemv_f32(wf, n.k, a, b, x, m, y, n.n); });
    });
  }
}

void CpuBackend::rms_norm(const Graph& g, const Node& n) {
  const float* x = f32(n.in[0]);
  const float* w = f32(n.in[1]);
  float* y = output(n.out);
  for (int r = 0; r < g.rows(); ++r) kernels_.rms_norm(x + r * n.n, w, y + r * n.n, n.n, g.cfg.rms_eps);
}

void CpuBackend::add(const Graph& g, const Node& n) {
  kernels_.add(f32(n.in[0]), f32(n.in[1]), output(n.out), g.rows() * n.n);
}

void CpuBackend::mul(const Graph& g, const Node& n) {
  kernels_.mul(f32(n.in[0]), f32(n.in[1]), output(n.out), g.rows() * n.n);
}

void CpuBackend::silu(const Graph& g, const Node& n) {
  kernels_.silu(f32(n.in[0]), output(n.out), g.rows() * n.n);
}

// Rotates adjacent pairs (x[2i], x[2i+1]) of every head by pos * theta^(-2i/d).
void CpuBackend::rope(const Graph& g, const Node& n) {
  const float* x = f32(n.in[0]);
  float* y = output(n.out);
  const int hd = g.cfg.head_dim();
  cos_.resize(static_cast<size_t>(hd / 2));
  sin_.resize(static_cast<size_t>(hd / 2));
  for (int r = 0; r < g.rows(); ++r) {
    // The angles depend on the position, not the head: one cos/sin per pair
    // and row instead of per pair and head (16x fewer for Q here).
    const float p = static_cast<float>(pos_ + r % g.seq_tokens);
    for (int i = 0; i < hd / 2; ++i) {
      const float a = p * inv_freq_[static_cast<size_t>(i)];
      cos_[static_cast<size_t>(i)] = std::cos(a);
      sin_[static_cast<size_t>(i)] = std::sin(a);
    }
    for (int64_t h = 0; h < n.n / hd; ++h) {
      const int64_t base = r * n.n + h * hd;
      for (int i = 0; i < hd / 2; ++i) {
        const float c = cos_[static_cast<size_t>(i)], s = sin_[static_cast<size_t>(i)];
        const float x0 = x[base + 2 * i], x1 = x[base + 2 * i + 1];
        y[base + 2 * i] = x0 * c - x1 * s;
        y[base + 2 * i + 1] = x0 * s + x1 * c;
      }
    }
  }
}

// Row r (sequence r / T, token r % T) is written to cache row
// seq * context + pos + r % T.
void CpuBackend::copy(const Graph& g, const Node& n) {
  const float* src = f32(n.in[0]);
  float* cache = output(n.out);
  for (int r = 0; r < g.rows(); ++r) {
    const int64_t seq = r / g.seq_tokens, t = r % g.seq_tokens;
    const int64_t dst = seq * g.cfg.context + pos_ + t;
    std::memcpy(cache + dst * n.n, src + r * n.n, static_cast<size_t>(n.n) * sizeof(float));
  }
}

// Causal attention with grouped-query heads: head h reads KV head
// h / (heads / kv_heads). Softmax in f32 with the max subtracted.
void CpuBackend::attention(const Graph& g, const Node& n) {
  const Config& c = g.cfg;
  // This rank's heads (all of them at tp 1) and the KV heads they read.
  const int hd = c.head_dim(), group = c.heads / c.kv_heads, kv = c.kv_dim();
  const int heads = c.rank_heads(), width = c.q_dim();
  const float* q = f32(n.in[0]);
  const float* kc = f32(n.in[1]);
  const float* vc = f32(n.in[2]);
  float* out = output(n.out);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const int64_t items = static_cast<int64_t>(g.rows()) * heads;
  pool_.parallel_for(items, 4, [&](int64_t i0, int64_t i1) {
    std::vector<float> score(static_cast<size_t>(c.context));
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t r = i / heads, h = i % heads;
      const int64_t seq = r / g.seq_tokens, len = pos_ + r % g.seq_tokens + 1;
      const float* qh = q + r * width + h * hd;
      const int64_t kv_off = (h / group) * hd;
      const int64_t row0 = seq * c.context;
      float mx = -INFINITY;
      for (int64_t j = 0; j < len; ++j) {
        score[static_cast<size_t>(j)] = kernels_.dot(qh, kc + (row0 + j) * kv + kv_off, hd) * scale;
        mx = std::max(mx, score[static_cast<size_t>(j)]);
      }
      float total = 0;
      for (int64_t j = 0; j < len; ++j) {
        score[static_cast<size_t>(j)] = std::exp(score[static_cast<size_t>(j)] - mx);
        total += score[static_cast<size_t>(j)];
      }
      float* oh = out + r * width + h * hd;
      std::memset(oh, 0, static_cast<size_t>(hd) * sizeof(float));
      for (int64_t j = 0; j < len; ++j) {
        kernels_.axpy(score[static_cast<size_t>(j)] / total, vc + (row0 + j) * kv + kv_off, oh, hd);
      }
    }
  });
}

void CpuBackend::all_reduce(const Graph& g, const Node& n) {
  if (!comm_) throw std::logic_error("AllReduce in a graph without a communicator");
  comm_->all_reduce_sum(output(n.out), g.rows() * n.n);
}

}  // namespace bricklayer
