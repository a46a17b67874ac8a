// Tensor parallelism without MPI: each rank's weights are exactly its slice
// of the whole model's, its graph all-reduces after the output and down
// projections, and two ranks run as two threads over an in-memory
// communicator produce the single-rank run's logits (to rounding) and
// tokens.
#include <gtest/gtest.h>

#include <barrier>
#include <cstring>
#include <thread>

#include "kernels/cpu_backend.h"
#include "kernels/cpu_detect.h"
#include "kernels/engine.h"
#include "kernels/q4k_format.h"
#include "kernels/thread_pool.h"

namespace bricklayer {
namespace {

Config small(int tp = 1, int rank = 0) {
  Config c;
  c.layers = 2;
  c.hidden = 512;
  c.heads = 8;
  c.kv_heads = 4;
  c.ffn = 1024;
  c.vocab = 256;
  c.context = 16;
  c.tp = tp;
  c.tp_rank = rank;
  return c;
}

// Two ranks in one process: sums and broadcasts through shared slots.
struct Shared {
  std::barrier<> meet{2};
  std::vector<float> slot[2];
  std::vector<int32_t> tokens;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(Shared& shared, int rank) : s_(shared), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return 2; }
  void all_reduce_sum(float* data, int64_t count) override {
    s_.slot[rank_].assign(data, data + count);
    s_.meet.arrive_and_wait();
    for (int64_t i = 0; i < count; ++i) data[i] = s_.slot[0][i] + s_.slot[1][i];
    s_.meet.arrive_and_wait();
  }
  void broadcast(int32_t* data, int64_t count, int root) override {
    if (rank_ == root) s_.tokens.assign(data, data + count);
    s_.meet.arrive_and_wait();
    std::memcpy(data, s_.tokens.data(), static_cast<size_t>(count) * sizeof(int32_t));
    s_.meet.arrive_and_wait();
  }

 private:
  Shared& s_;
  int rank_;
};

struct Decoded {
  std::vector<int32_t> tokens;
  std::vector<float> last_logits;
};

Decoded decode(const Config& cfg, Communicator* comm, int steps) {
  ThreadPool pool(1);
  const Model model = make_model(cfg, pool);
  CpuBackend backend(kernels_for(SimdLevel::Scalar), pool);
  backend.set_communicator(comm);
  Engine engine(model, backend, 4, Mode::Eager, comm);
  engine.prefill({1, 2, 3, 4}, 4);
  Decoded r;
  std::vector<int32_t> next = engine.argmax();
  for (int i = 0; i < steps; ++i) {
    r.tokens.push_back(next[0]);
    engine.decode(next);
    next = engine.argmax();
  }
  r.last_logits = engine.last_logits();
  return r;
}

TEST(TensorParallel, EachRankHoldsItsSliceOfTheWholeModel) {
  ThreadPool pool(2);
  const Model whole = make_model(small(), pool);
  for (int rank = 0; rank < 2; ++rank) {
    const Model part = make_model(small(2, rank), pool);
    const LayerWeights& w = whole.layers[1];
    const LayerWeights& p = part.layers[1];
    const int64_t blocks = whole.cfg.hidden / kQK;  // Q4_K blocks per row of width hidden
    // Rows of Q: this rank's heads.
    ASSERT_EQ(p.wq.rows, 256);
    EXPECT_EQ(std::memcmp(p.wq.q4k.data(), w.wq.q4k.data() + rank * 256 * blocks,
                          p.wq.q4k.size() * sizeof(BlockQ4K)),
              0);
    // Columns of the output projection: the same heads' inputs, every row.
    ASSERT_EQ(p.wo.rows, 512);
    ASSERT_EQ(p.wo.cols, 256);
    for (int64_t row = 0; row < p.wo.rows; ++row)
      ASSERT_EQ(std::memcmp(&p.wo.q4k[static_cast<size_t>(row)],
                            &w.wo.q4k[static_cast<size_t>(row * blocks + rank)], sizeof(BlockQ4K)),
                0)
          << "row " << row;
    EXPECT_EQ(p.w_down.cols, 512);
    EXPECT_EQ(p.w_gate.rows, 512);
    EXPECT_EQ(p.wk.rows, 128);  // 2 of 4 KV heads of 64
  }
}

TEST(TensorParallel, AnAllReduceAfterTheOutputAndDownProjections) {
  ThreadPool pool(1);
  const Model model = make_model(small(2, 0), pool);
  const Graph g = build_graph(model, 1, 4);
  const auto& [begin, end] = g.layers[0];
  std::vector<Op> after;
  for (size_t i = begin + 1; i < end; ++i)
    if (g.nodes[i].op == Op::AllReduce) after.push_back(g.nodes[i - 1].op);
  EXPECT_EQ(after, (std::vector<Op>{Op::MulMat, Op::MulMat}));
  EXPECT_EQ(g.nodes[begin + 1].n, 256);  // Q: this rank's 4 heads of 64
  const Graph single = build_graph(make_model(small(), pool), 1, 4);
  for (const Node& n : single.nodes) EXPECT_NE(n.op, Op::AllReduce);
}

TEST(TensorParallel, BadSplitsSayWhy) {
  Config c = small(3);
  EXPECT_NE(validate(c).find("must divide --heads"), std::string::npos) << validate(c);
  c = small(2);
  c.hidden = 256;  // each rank's 128 columns are half a Q4_K block
  c.heads = 4;
  c.kv_heads = 2;
  EXPECT_NE(validate(c).find("multiple of 256"), std::string::npos) << validate(c);
  c.weights = WeightType::F32;
  EXPECT_EQ(validate(c), "");
}

TEST(TensorParallel, TwoRanksDecodeTheSingleRanksTokens) {
  const Decoded single = decode(small(), nullptr, 6);
  Shared shared;
  Decoded ranks[2];
  std::thread other([&] {
    ThreadCommunicator comm(shared, 1);
    ranks[1] = decode(small(2, 1), &comm, 6);
  });
  {
    ThreadCommunicator comm(shared, 0);
    ranks[0] = decode(small(2, 0), &comm, 6);
  }
  other.join();
  for (const Decoded& r : ranks) {
    EXPECT_EQ(r.tokens, single.tokens);
    ASSERT_EQ(r.last_logits.size(), single.last_logits.size());
    for (size_t i = 0; i < r.last_logits.size(); ++i)
      ASSERT_NEAR(r.last_logits[i], single.last_logits[i], 1e-3f) << "logit " << i;
  }
}

}  // namespace
}  // namespace bricklayer
