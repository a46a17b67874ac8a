// Model configuration and deterministic synthetic weights (f32 or Q4_K).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/huge_pages.h"
#include "kernels/q4k_format.h"

namespace bricklayer {

class ThreadPool;

enum class WeightType { F32, Q4K };

struct Config {
  int layers = 4;
  int hidden = 2048;
  int heads = 16;
  int kv_heads = 4;
  int ffn = 5632;
  int vocab = 8192;
  int context = 256;
  int batch = 1;  // independent sequences decoded together
  WeightType weights = WeightType::Q4K;
  float rms_eps = 1e-5f;
  float rope_theta = 10000.0f;
  uint64_t seed = 42;
  // Tensor parallelism (--tp): this rank holds heads/tp attention heads
  // (kv_heads/tp KV heads) and ffn/tp FFN columns, and the output and down
  // projections' matching input columns; the rest is replicated.
  int tp = 1;
  int tp_rank = 0;

  int head_dim() const { return hidden / heads; }
  int rank_heads() const { return heads / tp; }
  int rank_kv_heads() const { return kv_heads / tp; }
  // Widths of this rank's slice: queries and attention output, keys and
  // values, FFN activations (the whole model's at tp 1).
  int q_dim() const { return rank_heads() * head_dim(); }
  int kv_dim() const { return rank_kv_heads() * head_dim(); }
  int rank_ffn() const { return ffn / tp; }
  int model_kv_dim() const { return kv_heads * head_dim(); }
};

// Empty when the configuration is usable, else one line saying what is wrong.
std::string validate(const Config& c);

// A weight matrix of `rows` output features by `cols` input features, stored
// row-major in one of the two formats.
struct Matrix {
  WeightType type = WeightType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  // Huge pages: every decode step streams all of them (see huge_pages.h).
  std::vector<float, HugePageAllocator<float>> f32;
  std::vector<BlockQ4K, HugePageAllocator<BlockQ4K>> q4k;

  const void* data() const {
    return type == WeightType::Q4K ? static_cast<const void*>(q4k.data()) : f32.data();
  }
  int64_t bytes() const {
    return type == WeightType::Q4K ? static_cast<int64_t>(q4k.size() * sizeof(BlockQ4K))
                                   : static_cast<int64_t>(f32.size() * sizeof(float));
  }
  // Row r as f32 (dequantized if needed).
  void row(int64_t r, float* out) const;
};

struct LayerWeights {
  std::vector<float> attn_norm;
  Matrix wq, wk, wv, wo;
  std::vector<float> ffn_norm;
  Matrix w_gate, w_up, w_down;
};

struct Model {
  Config cfg;
  Matrix tok_embd;  // vocab x hidden
  std::vector<LayerWeights> layers;
  std::vector<float> out_norm;
  Matrix lm_head;  // vocab x hidden

  // Weight bytes one decode step reads (all projections and the LM head).
  int64_t weight_bytes_per_token() const;
};

// Same seed, same weights, whatever the thread count.
Model make_model(const Config& cfg, ThreadPool& pool);

}  // namespace bricklayer
