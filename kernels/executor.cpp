// The graph walk with brickprof annotations: Layer -> Brick (with FLOPs, bytes) -> kernel.
#include "kernels/executor.h"

#include <brickprof/brickprof.h>

#include <atomic>
#include <chrono>

#include "kernels/memory_pools.h"
#include "kernels/output_checks.h"

namespace bricklayer {

int dispatch_node(const Graph& g, const Node& n, Dispatcher& d) {
  switch (n.op) {
    case Op::None: return 0;  // a leaf: its data is already in place
    case Op::GetRows: d.get_rows(g, n); break;
    case Op::MulMat: d.mul_mat(g, n); break;
    case Op::RmsNorm: d.rms_norm(g, n); break;
    case Op::Add: d.add(g, n); break;
    case Op::Rope: d.rope(g, n); break;
    case Op::SoftMax: d.attention(g, n); break;
    case Op::Copy: d.copy(g, n); break;
    case Op::Mul: d.mul(g, n); break;
    case Op::Silu: d.silu(g, n); break;
    case Op::AllReduce: d.all_reduce(g, n); break;
  }
  return 1;
}

namespace {

// The scope macros keep static per-site metadata, so each brick needs its
// own call site: one case per brick.
std::atomic<int64_t> g_delays{0}, g_delay_ns{0};

// --test-slow-us: a busy wait inside the brick, as if its kernel were slow.
// On a loaded machine it overshoots (preempted near its end), so what it
// took is kept.
void spin_for(int64_t ns) {
  const auto start = std::chrono::steady_clock::now();
  const auto until = start + std::chrono::nanoseconds(ns);
  auto now = start;
  while (now < until) now = std::chrono::steady_clock::now();
  g_delays.fetch_add(1, std::memory_order_relaxed);
  g_delay_ns.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count(),
                       std::memory_order_relaxed);
}

// --repeat-brick: the op again, `times` in all. Only bricks whose ops do not
// write what they read are accepted (main.cpp), so the result is the same.
int dispatch_repeated(const Graph& g, const Node& n, Dispatcher& d, const BrickRepeat& repeat) {
  const int times = n.brick == repeat.brick ? repeat.times : 1;
  for (int i = 1; i < times; ++i) dispatch_node(g, n, d);
  return dispatch_node(g, n, d);
}

int annotated(const Graph& g, const Node& n, Dispatcher& d, const Step& s, int64_t delay_ns) {
  const uint64_t elements = static_cast<uint64_t>(g.rows()) * static_cast<uint64_t>(n.n);
  const Work w = node_work(g, n, s.pos);
#define BRICKLAYER_RUN(SCOPE)                                  \
  {                                                            \
    SCOPE;                                                     \
    BRICKPROF_WORK(w.flops, w.bytes);                          \
    report_node_shapes(g, n);                                  \
    if (delay_ns > 0) spin_for(delay_ns);                      \
    const int launched = dispatch_repeated(g, n, d, s.repeat); \
    if (s.checks) check_output(g, n, d, s, *s.checks);         \
    return launched;                                           \
  }
  switch (n.brick) {
    case Brick::Embedding: BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_EMBEDDING, elements))
    case Brick::RmsNorm: BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, elements))
    case Brick::QkvProjection:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_QKV_PROJECTION, elements))
    case Brick::RopeEmbedding:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_ROPE_EMBEDDING, elements))
    case Brick::KvCacheWrite: BRICKLAYER_RUN(BRICKPROF_BRICK_NAMED("KvCacheWrite", elements))
    case Brick::AttentionScore:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_ATTENTION_SCORE, elements))
    case Brick::OutputProjection:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_OUTPUT_PROJECTION, elements))
    case Brick::ResidualAdd: BRICKLAYER_RUN(BRICKPROF_BRICK_NAMED("ResidualAdd", elements))
    case Brick::GateProjection:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_GATE_PROJECTION, elements))
    case Brick::UpProjection:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_UP_PROJECTION, elements))
    case Brick::Activation: BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_ACTIVATION, elements))
    case Brick::DownProjection:
      BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_DOWN_PROJECTION, elements))
    case Brick::LmHead: BRICKLAYER_RUN(BRICKPROF_BRICK(BRICKPROF_BRICK_LM_HEAD, elements))
    case Brick::AllReduce: BRICKLAYER_RUN(BRICKPROF_BRICK_NAMED("AllReduce", elements))
  }
#undef BRICKLAYER_RUN
  return dispatch_node(g, n, d);
}

// `first_delay_ns` holds up the range's first op (a layer's first brick).
int64_t run_range(const Graph& g, Dispatcher& d, const Step& s, size_t begin, size_t end,
                  int64_t first_delay_ns = 0) {
  int64_t count = 0;
  for (size_t i = begin; i < end; ++i) {
    const Node& n = g.nodes[i];
    if (n.op != Op::None) count += annotated(g, n, d, s, i == begin ? first_delay_ns : 0);
  }
  return count;
}

}  // namespace

TestDelays test_delays() { return {g_delays.load(), g_delay_ns.load()}; }

int64_t execute_graph(const Graph& g, Dispatcher& d, const Step& s) {
  d.begin_step(g, s);
  int64_t count = run_range(g, d, s, 0, g.prologue_end);
  for (size_t l = 0; l < g.layers.size(); ++l) {
    BRICKPROF_LAYER(l);
    count += run_range(g, d, s, g.layers[l].first, g.layers[l].second, s.layer_delay_ns);
  }
  const size_t epilogue = g.layers.empty() ? g.prologue_end : g.layers.back().second;
  count += run_range(g, d, s, epilogue, g.nodes.size());
  d.end_step(g);
  return count;
}

}  // namespace bricklayer
