// Builds the Llama-style decoder graph: embed, N x (attention + SwiGLU FFN), norm, LM head.
#include "kernels/graph.h"

#include "kernels/q4k_format.h"

namespace bricklayer {

int64_t Tensor::bytes() const {
  if (kind == TensorKind::Weight && type == WeightType::Q4K)
    return rows * (cols / kQK) * static_cast<int64_t>(sizeof(BlockQ4K));
  return rows * cols * 4;  // f32 and int32
}

const char* op_name(Op op) {
  switch (op) {
    case Op::None: return "None";
    case Op::GetRows: return "GetRows";
    case Op::MulMat: return "MulMat";
    case Op::RmsNorm: return "RmsNorm";
    case Op::Add: return "Add";
    case Op::Rope: return "Rope";
    case Op::SoftMax: return "SoftMax";
    case Op::Copy: return "Copy";
    case Op::Mul: return "Mul";
    case Op::Silu: return "Silu";
    case Op::AllReduce: return "AllReduce";
  }
  return "?";
}

const char* brick_name(Brick b) {
  switch (b) {
    case Brick::Embedding: return "Embedding";
    case Brick::RmsNorm: return "RmsNorm";
    case Brick::QkvProjection: return "QkvProjection";
    case Brick::RopeEmbedding: return "RopeEmbedding";
    case Brick::KvCacheWrite: return "KvCacheWrite";
    case Brick::AttentionScore: return "AttentionScore";
    case Brick::OutputProjection: return "OutputProjection";
    case Brick::ResidualAdd: return "ResidualAdd";
    case Brick::GateProjection: return "GateProjection";
    case Brick::UpProjection: return "UpProjection";
    case Brick::Activation: return "Activation";
    case Brick::DownProjection: return "DownProjection";
    case Brick::LmHead: return "LmHead";
    case Brick::AllReduce: return "AllReduce";
  }
  return "?";
}

int64_t Graph::op_count() const {
  int64_t n = 0;
  for (const auto& node : nodes) n += node.op != Op::None;
  return n;
}

namespace {

struct Builder {
  Graph& g;

  int tensor(std::string name, TensorKind kind, int64_t rows, int64_t cols,
             WeightType type = WeightType::F32, const void* host = nullptr) {
    g.tensors.push_back(Tensor{std::move(name), kind, type, rows, cols, host});
    return static_cast<int>(g.tensors.size()) - 1;
  }
  int weight(std::string name, const Matrix& m) {
    return tensor(std::move(name), TensorKind::Weight, m.rows, m.cols, m.type, m.data());
  }
  int vec(std::string name, const std::vector<float>& v) {
    return tensor(std::move(name), TensorKind::Vector, 1, static_cast<int64_t>(v.size()),
                  WeightType::F32, v.data());
  }
  void node(Op op, Brick brick, int layer, int out, std::array<int, 3> in, int64_t n,
            int64_t k = 0) {
    g.nodes.push_back(Node{op, brick, layer, out, in, n, k});
  }
};

}  // namespace

Graph build_graph(const Model& model, int seq_tokens, int max_seq_tokens) {
  Graph g;
  g.cfg = model.cfg;
  g.seq_tokens = seq_tokens;
  const Config& c = model.cfg;
  const int64_t max_rows = static_cast<int64_t>(max_seq_tokens) * c.batch;
  // This rank's widths: queries, keys and values, FFN activations.
  const int64_t h = c.hidden, q_dim = c.q_dim(), kv = c.kv_dim(), f = c.rank_ffn();
  Builder b{g};

  // Activation buffers are shared by all layers: the walk is sequential.
  g.tokens = b.tensor("tokens", TensorKind::Tokens, max_rows, 1);
  const int x = b.tensor("x", TensorKind::Activation, max_rows, h);
  const int xn = b.tensor("x_norm", TensorKind::Activation, max_rows, h);
  const int q = b.tensor("q", TensorKind::Activation, max_rows, q_dim);
  const int k = b.tensor("k", TensorKind::Activation, max_rows, kv);
  const int v = b.tensor("v", TensorKind::Activation, max_rows, kv);
  const int attn = b.tensor("attn", TensorKind::Activation, max_rows, q_dim);
  const int proj = b.tensor("proj", TensorKind::Activation, max_rows, h);
  const int gate = b.tensor("gate", TensorKind::Activation, max_rows, f);
  const int up = b.tensor("up", TensorKind::Activation, max_rows, f);
  const int ffn = b.tensor("ffn", TensorKind::Activation, max_rows, f);
  g.logits = b.tensor("logits", TensorKind::Activation, max_rows, c.vocab);

  const int embd = b.weight("tok_embd", model.tok_embd);
  b.node(Op::None, Brick::Embedding, -1, g.tokens, {-1, -1, -1}, 1);
  b.node(Op::GetRows, Brick::Embedding, -1, x, {embd, g.tokens, -1}, h);
  g.prologue_end = g.nodes.size();

  for (int l = 0; l < c.layers; ++l) {
    const LayerWeights& w = model.layers[static_cast<size_t>(l)];
    const std::string p = "blk." + std::to_string(l) + ".";
    const int attn_norm = b.vec(p + "attn_norm", w.attn_norm);
    const int wq = b.weight(p + "attn_q", w.wq), wk = b.weight(p + "attn_k", w.wk);
    const int wv = b.weight(p + "attn_v", w.wv), wo = b.weight(p + "attn_output", w.wo);
    const int ffn_norm = b.vec(p + "ffn_norm", w.ffn_norm);
    const int wg = b.weight(p + "ffn_gate", w.w_gate), wu = b.weight(p + "ffn_up", w.w_up);
    const int wd = b.weight(p + "ffn_down", w.w_down);
    const int64_t cache_rows = static_cast<int64_t>(c.batch) * c.context;
    const int kc = b.tensor(p + "cache_k", TensorKind::KvCache, cache_rows, kv);
    const int vc = b.tensor(p + "cache_v", TensorKind::KvCache, cache_rows, kv);

    const size_t begin = g.nodes.size();
    b.node(Op::RmsNorm, Brick::RmsNorm, l, xn, {x, attn_norm, -1}, h);
    b.node(Op::MulMat, Brick::QkvProjection, l, q, {wq, xn, -1}, q_dim, h);
    b.node(Op::MulMat, Brick::QkvProjection, l, k, {wk, xn, -1}, kv, h);
    b.node(Op::MulMat, Brick::QkvProjection, l, v, {wv, xn, -1}, kv, h);
    b.node(Op::Rope, Brick::RopeEmbedding, l, q, {q, -1, -1}, q_dim);
    b.node(Op::Rope, Brick::RopeEmbedding, l, k, {k, -1, -1}, kv);
    b.node(Op::Copy, Brick::KvCacheWrite, l, kc, {k, -1, -1}, kv);
    b.node(Op::Copy, Brick::KvCacheWrite, l, vc, {v, -1, -1}, kv);
    b.node(Op::SoftMax, Brick::AttentionScore, l, attn, {q, kc, vc}, q_dim);
    b.node(Op::MulMat, Brick::OutputProjection, l, proj, {wo, attn, -1}, h, q_dim);
    // Each rank's projection is a partial sum over its heads.
    if (c.tp > 1) b.node(Op::AllReduce, Brick::AllReduce, l, proj, {proj, -1, -1}, h);
    b.node(Op::Add, Brick::ResidualAdd, l, x, {x, proj, -1}, h);
    b.node(Op::RmsNorm, Brick::RmsNorm, l, xn, {x, ffn_norm, -1}, h);
    b.node(Op::MulMat, Brick::GateProjection, l, gate, {wg, xn, -1}, f, h);
    b.node(Op::MulMat, Brick::UpProjection, l, up, {wu, xn, -1}, f, h);
    b.node(Op::Silu, Brick::Activation, l, gate, {gate, -1, -1}, f);
    b.node(Op::Mul, Brick::Activation, l, ffn, {gate, up, -1}, f);
    b.node(Op::MulMat, Brick::DownProjection, l, proj, {wd, ffn, -1}, h, f);
    if (c.tp > 1) b.node(Op::AllReduce, Brick::AllReduce, l, proj, {proj, -1, -1}, h);
    b.node(Op::Add, Brick::ResidualAdd, l, x, {x, proj, -1}, h);
    g.layers.emplace_back(begin, g.nodes.size());
  }

  const int out_norm = b.vec("output_norm", model.out_norm);
  const int head = b.weight("output", model.lm_head);
  b.node(Op::RmsNorm, Brick::RmsNorm, -1, xn, {x, out_norm, -1}, h);
  b.node(Op::MulMat, Brick::LmHead, -1, g.logits, {head, xn, -1}, c.vocab, h);
  return g;
}

Work node_work(const Graph& g, const Node& n, int pos) {
  const double m = g.rows(), e = static_cast<double>(n.n);
  Work w;
  switch (n.op) {
    case Op::None: break;
    case Op::GetRows: w = {0, m * e * 8}; break;
    case Op::MulMat: {
      const Tensor& wt = g.tensors[static_cast<size_t>(n.in[0])];
      w.flops = 2.0 * m * e * static_cast<double>(n.k);
      w.bytes = static_cast<double>(wt.bytes()) + 4.0 * m * (e + static_cast<double>(n.k));
      break;
    }
    case Op::RmsNorm: w = {4 * m * e, 12 * m * e}; break;
    case Op::Add:
    case Op::Mul: w = {m * e, 12 * m * e}; break;
    case Op::Silu: w = {4 * m * e, 8 * m * e}; break;
    case Op::Rope: w = {3 * m * e, 8 * m * e}; break;
    case Op::Copy: w = {0, 8 * m * e}; break;
    case Op::AllReduce: w = {0, 4 * m * e}; break;  // the tensor leaves and comes back summed
    case Op::SoftMax: {
      // Each row reads keys and values up to its position (causal), across
      // the KV heads; Q.K and P.V are 2 FLOPs per element each.
      const double kv = g.cfg.kv_dim(), ctx = pos + (g.seq_tokens + 1) / 2.0;
      w.flops = m * ctx * 4.0 * e;
      w.bytes = m * ctx * 2.0 * kv * 4 + 8 * m * e;
      break;
    }
  }
  return w;
}

}  // namespace bricklayer
