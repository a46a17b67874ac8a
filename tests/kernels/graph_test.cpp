// The tensor-op graph: shape, topological order, one dispatch per op, graph-mode launch counting.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "kernels/engine.h"
#include "kernels/executor.h"
#include "kernels/thread_pool.h"

namespace bricklayer {
namespace {

Config tiny() {
  return Config{.layers = 3, .hidden = 256, .heads = 2, .kv_heads = 1, .ffn = 256, .vocab = 64,
                .context = 8, .weights = WeightType::Q4K};
}

// Records every dispatch; with `capture` it behaves like the CUDA backend's
// graph mode: launches during capture are recorded, replay is one launch.
class CountingDispatcher final : public Dispatcher {
 public:
  explicit CountingDispatcher(bool capture) : capture_(capture) {}
  std::string name() const override { return "counting"; }
  void prepare(const Graph&) override { ++prepares; }
  void begin_step(const Graph&, const Step& s) override { steps.push_back(s.pos); }
  void end_step(const Graph&) override {}
  void read(int, float* dst, int64_t count) override { std::fill(dst, dst + count, 0.0f); }
  void read_at(int, int64_t, float* dst, int64_t count) override {
    std::fill(dst, dst + count, 0.0f);
  }
  void write_at(int, int64_t, const float*, int64_t) override {}
  void get_rows(const Graph&, const Node& n) override { hit(n); }
  void mul_mat(const Graph&, const Node& n) override { hit(n); }
  void rms_norm(const Graph&, const Node& n) override { hit(n); }
  void add(const Graph&, const Node& n) override { hit(n); }
  void rope(const Graph&, const Node& n) override { hit(n); }
  void attention(const Graph&, const Node& n) override { hit(n); }
  void copy(const Graph&, const Node& n) override { hit(n); }
  void mul(const Graph&, const Node& n) override { hit(n); }
  void silu(const Graph&, const Node& n) override { hit(n); }
  bool can_capture() const override { return capture_; }
  void begin_capture() override { capturing_ = true; }
  void end_capture() override { capturing_ = false; captured_ = true; }
  bool captured() const override { return captured_; }
  void replay(const Graph&, const Step&) override { ++graph_launches_; }

  std::map<Op, int> per_op;
  std::vector<int> steps;
  int prepares = 0;

 private:
  void hit(const Node& n) {
    ++per_op[n.op];
    ++kernel_launches_;
  }
  bool capture_, capturing_ = false, captured_ = false;
};

TEST(Graph, OneKernelPerOpAndTheExpectedOpMix) {
  ThreadPool pool(1);
  const Model model = make_model(tiny(), pool);
  const Graph g = build_graph(model, 1, 4);
  // Per layer: 2 RmsNorm, 7 MulMat, 2 Rope, 2 Copy, attention, 2 Add, Silu,
  // Mul = 18; plus embedding, final norm, LM head.
  EXPECT_EQ(g.op_count(), 18 * 3 + 3);
  CountingDispatcher d(false);
  EXPECT_EQ(execute_graph(g, d, Step{0, nullptr}), g.op_count());
  EXPECT_EQ(d.kernel_launches(), g.op_count());
  EXPECT_EQ(d.per_op[Op::MulMat], 7 * 3 + 1);
  EXPECT_EQ(d.per_op[Op::RmsNorm], 2 * 3 + 1);
  EXPECT_EQ(d.per_op[Op::SoftMax], 3);
  EXPECT_EQ(d.per_op[Op::Copy], 6);
  EXPECT_EQ(d.per_op[Op::GetRows], 1);
  EXPECT_EQ(d.per_op.count(Op::None), 0u);  // leaves are not dispatched
}

TEST(Graph, TopologicalOrderAndSharedTensors) {
  ThreadPool pool(1);
  const Model model = make_model(tiny(), pool);
  const Graph g = build_graph(model, 1, 4), p = build_graph(model, 4, 4);
  ASSERT_EQ(g.tensors.size(), p.tensors.size());
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    EXPECT_EQ(g.tensors[i].name, p.tensors[i].name);
    EXPECT_EQ(g.tensors[i].bytes(), p.tensors[i].bytes());
  }
  // Every activation a node reads was written by an earlier node.
  std::set<int> written;
  for (const Node& n : g.nodes) {
    for (int in : n.in) {
      if (in < 0) continue;
      const TensorKind k = g.tensors[static_cast<size_t>(in)].kind;
      if (k == TensorKind::Activation || k == TensorKind::Tokens || k == TensorKind::KvCache) {
        EXPECT_TRUE(written.count(in)) << op_name(n.op) << " reads " << g.tensors[static_cast<size_t>(in)].name;
      }
    }
    written.insert(n.out);
  }
  EXPECT_EQ(g.layers.size(), 3u);
  for (size_t l = 0; l < g.layers.size(); ++l)
    for (size_t i = g.layers[l].first; i < g.layers[l].second; ++i) EXPECT_EQ(g.nodes[i].layer, static_cast<int>(l));
}

TEST(Graph, WorkOfAProjectionCountsItsWeights) {
  ThreadPool pool(1);
  const Model model = make_model(tiny(), pool);
  const Graph g = build_graph(model, 1, 1);
  const Node& q = g.nodes[g.layers[0].first + 1];
  ASSERT_EQ(q.op, Op::MulMat);
  const Work w = node_work(g, q, 0);
  EXPECT_EQ(w.flops, 2.0 * 256 * 256);
  EXPECT_EQ(w.bytes, 256.0 * 144 + 4.0 * (256 + 256));  // one Q4_K row per output + x + y
}

// Graph mode: the first decode step is captured (its kernels recorded once),
// then every step is one graph launch; eager mode launches every op per step.
TEST(Engine, GraphModeLaunchCounts) {
  ThreadPool pool(1);
  const Model model = make_model(tiny(), pool);
  for (bool graph : {false, true}) {
    CountingDispatcher d(graph);
    Engine engine(model, d, 2, graph ? Mode::Graph : Mode::Eager);
    engine.prefill({1, 2}, 2);
    const int64_t after_prefill = d.kernel_launches();
    EXPECT_EQ(after_prefill, engine.decode_ops());
    for (int i = 0; i < 5; ++i) engine.decode({3});
    const int64_t decode_kernels = d.kernel_launches() - after_prefill;
    if (graph) {
      EXPECT_EQ(decode_kernels, engine.decode_ops());  // the capture walk only
      EXPECT_EQ(d.graph_launches(), 5);
    } else {
      EXPECT_EQ(decode_kernels, 5 * engine.decode_ops());
      EXPECT_EQ(d.graph_launches(), 0);
    }
  }
}

TEST(ThreadPool, CoversTheRangeOnce) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 5, 1000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      for (int rep = 0; rep < 20; ++rep) {
        pool.parallel_for(n, 7, [&](int64_t a, int64_t b) {
          for (int64_t i = a; i < b; ++i) hits[static_cast<size_t>(i)]++;
        });
      }
      for (auto& h : hits) ASSERT_EQ(h.load(), 20);
    }
  }
}

}  // namespace
}  // namespace bricklayer
