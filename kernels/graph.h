// The tensor-op graph of the decoder: tensors, one node per kernel, built once per shape.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/model.h"

namespace bricklayer {

// The op set of the engine this mirrors; GetRows (embedding lookup) is ours.
// AllReduce sums a tensor across tensor-parallel ranks, in place.
enum class Op : uint8_t {
  None,
  GetRows,
  MulMat,
  RmsNorm,
  Add,
  Rope,
  SoftMax,
  Copy,
  Mul,
  Silu,
  AllReduce
};

// What a node is shown as in a profile (brickprof's well-known bricks, plus
// the custom ones KvCacheWrite, ResidualAdd and, under --tp, AllReduce,
// which brickprof files under Communication).
enum class Brick : uint8_t {
  Embedding,
  RmsNorm,
  QkvProjection,
  RopeEmbedding,
  KvCacheWrite,
  AttentionScore,
  OutputProjection,
  ResidualAdd,
  GateProjection,
  UpProjection,
  Activation,
  DownProjection,
  LmHead,
  AllReduce,
};

enum class TensorKind : uint8_t {
  Weight,      // a Matrix of the model (f32 or Q4_K)
  Vector,      // an f32 norm weight of the model
  Activation,  // f32, rows = tokens of the largest step
  KvCache,     // f32, rows = batch * context
  Tokens,      // int32 token ids
};

struct Tensor {
  std::string name;
  TensorKind kind = TensorKind::Activation;
  WeightType type = WeightType::F32;
  int64_t rows = 0;
  int64_t cols = 0;
  const void* host = nullptr;  // model data for Weight and Vector

  int64_t bytes() const;
};

struct Node {
  Op op = Op::None;
  Brick brick = Brick::RmsNorm;
  int layer = -1;  // -1 outside the layer stack
  int out = -1;    // tensor ids
  std::array<int, 3> in{-1, -1, -1};
  int64_t n = 0;  // elements per token of the output
  int64_t k = 0;  // elements per token of the input (MulMat)
};

const char* op_name(Op op);
const char* brick_name(Brick b);

struct Graph {
  Config cfg;
  int seq_tokens = 1;  // tokens per sequence in one step
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;  // in topological order
  // nodes[0, prologue_end) embed; layers[i] is a [begin, end) of nodes; the
  // rest (final norm, LM head) is the epilogue.
  size_t prologue_end = 0;
  std::vector<std::pair<size_t, size_t>> layers;
  int tokens = -1;  // tensor ids the caller fills / reads
  int logits = -1;

  int rows() const { return seq_tokens * cfg.batch; }
  // Nodes that launch a kernel (every node but leaves).
  int64_t op_count() const;
};

// Tensors are the same (same ids, same sizes) for every seq_tokens up to
// max_seq_tokens, so one backend allocation serves the prefill and decode graphs.
Graph build_graph(const Model& model, int seq_tokens, int max_seq_tokens);

// FLOPs and bytes a node does when the sequence already holds `pos` tokens.
struct Work {
  double flops = 0;
  double bytes = 0;
};
Work node_work(const Graph& g, const Node& n, int pos);

}  // namespace bricklayer
