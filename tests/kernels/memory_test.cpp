// What bricklayer tells brickprof about its memory and shapes, seen through
// a stand-in agent table this program exports (the header finds it as it
// finds the agent): the bytes it reports per pool equal its own figures
// (pool_bytes, printed by bricklayer), every pointer is freed once, and
// every brick it opens carries one shape with its dtype.
#include <brickprof/brickprof.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/backends.h"
#include "kernels/engine.h"
#include "kernels/memory_pools.h"
#include "kernels/thread_pool.h"

namespace {

struct Shape {
  std::string dtype;
  std::vector<std::vector<int64_t>> inputs;
  std::vector<int64_t> output;
};

// What the table was told, as the agent would record it.
struct Seen {
  std::vector<int32_t> open;  // kinds of the open scopes
  std::vector<int> shapes_in_open;
  int bricks = 0, bricks_with_one_shape = 0;
  std::map<std::string, int> bricks_by_name;
  std::map<std::string, std::vector<Shape>> shapes_by_brick;  // custom bricks by name
  std::vector<std::string> brick_names;                       // of the open scopes
  std::map<const void*, std::pair<uint64_t, std::string>> live;
  std::map<std::string, uint64_t> allocated;  // bytes per pool
  int double_allocs = 0, unknown_frees = 0, pool_mismatches = 0;
} g_seen;

brickprof__api_table g_table;

std::string brick_of(brickprof__site* site) {
  if (site->name) return site->name;
  return "brick " + std::to_string(site->brick);
}

int fake_push(brickprof__site* site, uint64_t) {
  g_seen.open.push_back(site->kind);
  g_seen.shapes_in_open.push_back(0);
  g_seen.brick_names.push_back(site->kind == BRICKPROF_KIND_BRICK ? brick_of(site) : "");
  return 1;
}
int fake_push_name(int32_t kind, const char* name, uint64_t) {
  brickprof__site site{name, kind, BRICKPROF_BRICK_CUSTOM, 0, 0};
  return fake_push(&site, 0);
}
void fake_pop() {
  if (g_seen.open.empty()) return;
  if (g_seen.open.back() == BRICKPROF_KIND_BRICK) {
    ++g_seen.bricks;
    ++g_seen.bricks_by_name[g_seen.brick_names.back()];
    if (g_seen.shapes_in_open.back() == 1) ++g_seen.bricks_with_one_shape;
  }
  g_seen.open.pop_back();
  g_seen.shapes_in_open.pop_back();
  g_seen.brick_names.pop_back();
}
void fake_add_work(double, double) {}
void fake_set_enabled(int) {}
int fake_is_enabled() { return 1; }
brickprof__thread_buffer* fake_thread_buffer() { return nullptr; }
void fake_set_host_peaks(double, double, const char*) {}
void fake_mem_alloc(const void* ptr, uint64_t bytes, const char* pool) {
  if (!g_seen.live.emplace(ptr, std::make_pair(bytes, std::string(pool))).second)
    ++g_seen.double_allocs;
  g_seen.allocated[pool] += bytes;
}
void fake_mem_free(const void* ptr, const char* pool) {
  auto it = g_seen.live.find(ptr);
  if (it == g_seen.live.end()) {
    ++g_seen.unknown_frees;
    return;
  }
  if (it->second.second != pool) ++g_seen.pool_mismatches;
  g_seen.live.erase(it);
}
void fake_set_shapes(const char* dtype, const int64_t* dims, const uint32_t* ranks,
                     uint32_t n_inputs, const int64_t* out_dims, uint32_t out_rank) {
  if (g_seen.open.empty()) return;
  ++g_seen.shapes_in_open.back();
  Shape s{dtype, {}, std::vector<int64_t>(out_dims, out_dims + out_rank)};
  for (uint32_t i = 0; i < n_inputs; ++i) {
    s.inputs.emplace_back(dims, dims + ranks[i]);
    dims += ranks[i];
  }
  g_seen.shapes_by_brick[g_seen.brick_names.back()].push_back(s);
}

// bricklayer reports its tokens; this test counts memory only.
void fake_counter(const char*, double) {}
void fake_tokens(uint64_t) {}
// Its GEMVs mark tiles and its probes report cache bandwidths; counted elsewhere (tiles_test).
uint64_t fake_tile_ticks() { return 0; }
void fake_tile(int32_t, uint64_t, uint64_t, uint64_t) {}
void fake_set_cache_bandwidth(double, double, double) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) const brickprof__api_table* brickprof_get_api(
    uint32_t) {
  g_table = brickprof__api_table{BRICKPROF__ABI_VERSION,
                                 sizeof(brickprof__api_table),
                                 fake_push,
                                 fake_push_name,
                                 fake_pop,
                                 fake_add_work,
                                 fake_set_enabled,
                                 fake_is_enabled,
                                 BRICKPROF__FAST_CALL,
                                 BRICKPROF__RECORD_LAYOUT,
                                 fake_thread_buffer,
                                 fake_set_host_peaks,
                                 fake_mem_alloc,
                                 fake_mem_free,
                                 fake_set_shapes,
                                 nullptr,  // checksum: never called without --checksums
                                 fake_counter,
                                 fake_tokens,
                                 fake_tile_ticks,
                                 fake_tile,
                                 fake_set_cache_bandwidth};
  return &g_table;
}

namespace bricklayer {
namespace {

Config tiny(WeightType weights) {
  return Config{.layers = 2, .hidden = 256, .heads = 2, .kv_heads = 1, .ffn = 512, .vocab = 64,
                .context = 8, .weights = weights};
}

// Runs a prompt of 3 and 2 decode steps on the scalar backend; the figures
// bricklayer prints, from its graph.
PoolBytes run_model(WeightType weights) {
  g_seen = Seen{};
  ThreadPool pool(1);
  std::string error;
  auto backend = make_backend("scalar", pool, &error);
  EXPECT_NE(backend, nullptr) << error;
  const Model model = make_model(tiny(weights), pool);
  PoolBytes figures;
  {
    Engine engine(model, *backend, 3, Mode::Eager);
    figures = pool_bytes(engine.decode_graph());
    engine.prefill({1, 2, 3}, 3);
    engine.decode(engine.argmax());
    engine.decode(engine.argmax());
    EXPECT_EQ(g_seen.live.size(), engine.decode_graph().tensors.size())
        << "each tensor reported once, while the backend holds it";
  }
  backend.reset();
  return figures;
}

TEST(Memory, PoolsReportedAreTheFiguresBricklayerPrints) {
  for (WeightType w : {WeightType::F32, WeightType::Q4K}) {
    const PoolBytes figures = run_model(w);
    EXPECT_GT(figures[Pool::Weights], 0);
    EXPECT_EQ(g_seen.allocated["weights"], static_cast<uint64_t>(figures[Pool::Weights]));
    EXPECT_EQ(g_seen.allocated["activations"], static_cast<uint64_t>(figures[Pool::Activations]));
    EXPECT_EQ(g_seen.allocated["kv_cache"], static_cast<uint64_t>(figures[Pool::KvCache]));
    EXPECT_EQ(g_seen.allocated.size(), 3u);
    EXPECT_EQ(g_seen.double_allocs, 0);
    EXPECT_EQ(g_seen.unknown_frees, 0);
    EXPECT_EQ(g_seen.pool_mismatches, 0);
    EXPECT_TRUE(g_seen.live.empty()) << g_seen.live.size() << " never freed";
  }
}

// The figures by hand for the tiny f32 model: 2 layers of 256 hidden, 512
// ffn, kv 128 (1 of 2 heads of 128), vocab 64, context 8, 3-token steps.
TEST(Memory, FiguresAddUpTheModel) {
  const PoolBytes b = run_model(WeightType::F32);
  const int64_t h = 256, f = 512, kv = 128, vocab = 64, ctx = 8, rows = 3;
  const int64_t per_layer = (h * h + kv * h * 2 + h * h + 3 * f * h) * 4 + 2 * h * 4;
  EXPECT_EQ(b[Pool::Weights], 2 * per_layer + 2 * vocab * h * 4 + h * 4);
  EXPECT_EQ(b[Pool::KvCache], 2 * 2 * ctx * kv * 4);
  EXPECT_EQ(b[Pool::Activations], rows * (1 + 3 * h + 2 * h + 2 * kv + 3 * f + vocab) * 4);
}

TEST(Memory, EveryBrickCarriesOneShape) {
  run_model(WeightType::Q4K);
  EXPECT_GT(g_seen.bricks, 0);
  EXPECT_EQ(g_seen.bricks_with_one_shape, g_seen.bricks);
  // A Q/K/V projection of a decode step: the Q4_K weight, one token in.
  const std::vector<Shape>& qkv = g_seen.shapes_by_brick["brick 2"];  // QkvProjection
  ASSERT_FALSE(qkv.empty());
  const Shape& last = qkv.back();  // the V projection of the last decode step
  EXPECT_EQ(last.dtype, "q4_k");
  EXPECT_EQ(last.inputs, (std::vector<std::vector<int64_t>>{{128, 256}, {1, 256}}));
  EXPECT_EQ(last.output, (std::vector<int64_t>{1, 128}));
  const Shape& first = qkv.front();  // the Q projection of the prompt
  EXPECT_EQ(first.inputs, (std::vector<std::vector<int64_t>>{{256, 256}, {3, 256}}));
  EXPECT_EQ(first.output, (std::vector<int64_t>{3, 256}));
  // A custom brick and sampling (a brick of the engine's, not the graph's).
  const Shape& kv_write = g_seen.shapes_by_brick["KvCacheWrite"].back();
  EXPECT_EQ(kv_write.dtype, "f32");
  EXPECT_EQ(kv_write.inputs, (std::vector<std::vector<int64_t>>{{1, 128}}));
  EXPECT_EQ(kv_write.output, (std::vector<int64_t>{8, 128}));
  const Shape& sampling = g_seen.shapes_by_brick["brick 14"].back();
  EXPECT_EQ(sampling.inputs, (std::vector<std::vector<int64_t>>{{1, 64}}));
  EXPECT_EQ(sampling.output, (std::vector<int64_t>{1}));
}

}  // namespace
}  // namespace bricklayer
