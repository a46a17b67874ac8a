// The binary contract between the public header and the agent. The layout
// of the table, a call site and a thread buffer is pinned to the bytes that
// programs built with earlier headers use; the agent serves every ABI
// version up to its own; and a function the table gained after an agent
// was built is never called through that agent's table (its `size` says it
// is not there), so a program built with a newer header runs under an older
// agent. This program exports its own brickprof_get_api, which the header's
// lazy binding finds first.
#include <brickprof/brickprof.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace {

brickprof__api_table g_table;
int g_calls = 0;
double g_gbps = 0;
// What the memory and shape entries were handed.
const void* g_ptr = nullptr;
uint64_t g_bytes = 0;
std::string g_pool;
std::string g_dtype;
std::vector<int64_t> g_dims, g_out;
std::vector<uint32_t> g_ranks;

void fake_set_host_peaks(double, double gbps, const char*) {
  ++g_calls;
  g_gbps = gbps;
}
void fake_mem_alloc(const void* ptr, uint64_t bytes, const char* pool) {
  ++g_calls;
  g_ptr = ptr;
  g_bytes = bytes;
  g_pool = pool ? pool : "(null)";
}
void fake_mem_free(const void* ptr, const char* pool) {
  ++g_calls;
  g_ptr = ptr;
  g_bytes = 0;
  g_pool = pool ? pool : "(null)";
}
void fake_set_shapes(const char* dtype, const int64_t* dims, const uint32_t* ranks,
                     uint32_t n_inputs, const int64_t* out_dims, uint32_t out_rank) {
  ++g_calls;
  g_dtype = dtype;
  g_ranks.assign(ranks, ranks + n_inputs);
  size_t total = 0;
  for (uint32_t r : g_ranks) total += r;
  g_dims.assign(dims, dims + total);
  g_out.assign(out_dims, out_dims + out_rank);
}

uint64_t g_checksum_count = 0;
void fake_checksum(const char*, const void*, uint64_t count, const char*) {
  ++g_calls;
  g_checksum_count = count;
}

double g_counter = 0;
uint64_t g_tokens = 0;
void fake_counter(const char*, double value) {
  ++g_calls;
  g_counter = value;
}
void fake_tokens(uint64_t n) {
  ++g_calls;
  g_tokens += n;
}

// The fake's clock advances 10 ticks a read; what the last tile brought.
uint64_t g_ticks = 0;
int32_t g_tile_level = -1;
uint64_t g_tile_ticks = 0, g_tile_elements = 0, g_tile_bytes = 0;
uint64_t fake_tile_ticks() {
  ++g_calls;
  return g_ticks += 10;
}
double g_cache[3] = {0, 0, 0};
void fake_set_cache_bandwidth(double l1, double l2, double l3) {
  ++g_calls;
  g_cache[0] = l1;
  g_cache[1] = l2;
  g_cache[2] = l3;
}
void fake_tile(int32_t level, uint64_t ticks, uint64_t elements, uint64_t bytes) {
  ++g_calls;
  g_tile_level = level;
  g_tile_ticks = ticks;
  g_tile_elements = elements;
  g_tile_bytes = bytes;
}

// A version-2 table `size` bytes long; the memory after it still holds a
// callable pointer, so a header that ignored `size` would call it.
void make_table(size_t size) {
  std::memset(&g_table, 0, sizeof g_table);
  g_table.abi_version = BRICKPROF__ABI_VERSION;
  g_table.size = static_cast<uint32_t>(size);
  g_table.fast_state = BRICKPROF__FAST_OFF;
  g_table.set_host_peaks = fake_set_host_peaks;
  g_table.mem_alloc = fake_mem_alloc;
  g_table.mem_free = fake_mem_free;
  g_table.set_shapes = fake_set_shapes;
  g_table.checksum = fake_checksum;
  g_table.counter = fake_counter;
  g_table.tokens = fake_tokens;
  g_table.tile_ticks = fake_tile_ticks;
  g_table.tile = fake_tile;
  g_table.set_cache_bandwidth = fake_set_cache_bandwidth;
  g_calls = 0;
}

// What a version-1 caller reads: the functions up to is_enabled.
constexpr size_t kVersion1Size = offsetof(brickprof__api_table, fast_state);

}  // namespace

extern "C" __attribute__((visibility("default"))) const brickprof__api_table* brickprof_get_api(
    uint32_t) {
  return &g_table;
}

// Offsets as programs built against ABI 1 and 2 (x86-64) compiled them in.
TEST(HeaderAbi, LayoutIsTheOneProgramsWereBuiltWith) {
  EXPECT_EQ(BRICKPROF__ABI_VERSION, 2u);
  EXPECT_EQ(offsetof(brickprof__api_table, abi_version), 0u);
  EXPECT_EQ(offsetof(brickprof__api_table, size), 4u);
  EXPECT_EQ(offsetof(brickprof__api_table, push), 8u);
  EXPECT_EQ(offsetof(brickprof__api_table, push_name), 16u);
  EXPECT_EQ(offsetof(brickprof__api_table, pop), 24u);
  EXPECT_EQ(offsetof(brickprof__api_table, add_work), 32u);
  EXPECT_EQ(offsetof(brickprof__api_table, set_enabled), 40u);
  EXPECT_EQ(offsetof(brickprof__api_table, is_enabled), 48u);
  EXPECT_EQ(offsetof(brickprof__api_table, fast_state), 56u);
  EXPECT_EQ(offsetof(brickprof__api_table, record_layout), 60u);
  EXPECT_EQ(offsetof(brickprof__api_table, thread_buffer), 64u);
  EXPECT_EQ(offsetof(brickprof__api_table, set_host_peaks), 72u);
  EXPECT_EQ(offsetof(brickprof__api_table, mem_alloc), 80u);
  EXPECT_EQ(offsetof(brickprof__api_table, mem_free), 88u);
  EXPECT_EQ(offsetof(brickprof__api_table, set_shapes), 96u);
  EXPECT_EQ(offsetof(brickprof__api_table, checksum), 104u);
  EXPECT_EQ(offsetof(brickprof__api_table, counter), 112u);
  EXPECT_EQ(offsetof(brickprof__api_table, tokens), 120u);
  EXPECT_EQ(offsetof(brickprof__api_table, tile_ticks), 128u);
  EXPECT_EQ(offsetof(brickprof__api_table, tile), 136u);
  EXPECT_EQ(offsetof(brickprof__api_table, set_cache_bandwidth), 144u);
  EXPECT_EQ(sizeof(brickprof__api_table), 152u);

  EXPECT_EQ(offsetof(brickprof__site, name), 0u);
  EXPECT_EQ(offsetof(brickprof__site, kind), 8u);
  EXPECT_EQ(offsetof(brickprof__site, brick), 12u);
  EXPECT_EQ(offsetof(brickprof__site, cookie), 16u);
  EXPECT_EQ(sizeof(brickprof__site), 24u);

  EXPECT_EQ(offsetof(brickprof__thread_buffer, cur), 0u);
  EXPECT_EQ(offsetof(brickprof__thread_buffer, end), 8u);
  EXPECT_EQ(BRICKPROF__RECORD_LAYOUT, 2u);
  EXPECT_EQ(BRICKPROF__RECORD_PUSH, 0u);
  EXPECT_EQ(BRICKPROF__RECORD_POP, 1u);
  EXPECT_EQ(BRICKPROF__PUSH_WORDS, 3);
  EXPECT_EQ(BRICKPROF__POP_WORDS, 2);
  EXPECT_EQ(BRICKPROF__FAST_OFF, 0u);
  EXPECT_EQ(BRICKPROF__FAST_INLINE, 1u);
  EXPECT_EQ(BRICKPROF__FAST_CALL, 2u);
  EXPECT_EQ(BRICKPROF__RECORD_TILE, 12u);
  EXPECT_EQ(BRICKPROF__TILE_WORDS, 14);
  EXPECT_EQ(BRICKPROF_TILE_MACRO, 0);
  EXPECT_EQ(BRICKPROF_TILE_MIDI, 1);
  EXPECT_EQ(BRICKPROF_TILE_MICRO, 2);
  EXPECT_EQ(BRICKPROF_KIND_LAYER, 0);
  EXPECT_EQ(BRICKPROF_KIND_BRICK, 1);
  EXPECT_EQ(BRICKPROF_KIND_SCOPE, 2);
}

// The agent itself (loaded privately; it sees this program's table first
// and stays inert) hands its table to callers of version 1 and 2 alike.
TEST(HeaderAbi, AgentServesEveryVersionUpToItsOwn) {
  void* agent = dlopen(BRICKPROF_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(agent, nullptr) << dlerror();
  auto get = reinterpret_cast<brickprof__get_api_fn>(dlsym(agent, "brickprof_get_api"));
  ASSERT_NE(get, nullptr);
  ASSERT_NE(reinterpret_cast<const void*>(get), reinterpret_cast<const void*>(&brickprof_get_api));

  EXPECT_EQ(get(0), nullptr);
  EXPECT_EQ(get(BRICKPROF__ABI_VERSION + 1), nullptr);
  const brickprof__api_table* v1 = get(1);
  const brickprof__api_table* v2 = get(2);
  ASSERT_NE(v1, nullptr);
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->abi_version, 2u);
  EXPECT_EQ(v2->size, sizeof(brickprof__api_table));
  EXPECT_GE(v1->size, kVersion1Size);
  EXPECT_NE(v1->push, nullptr);
  EXPECT_NE(v1->push_name, nullptr);
  EXPECT_NE(v1->pop, nullptr);
  EXPECT_NE(v1->add_work, nullptr);
  EXPECT_NE(v1->set_enabled, nullptr);
  EXPECT_NE(v1->is_enabled, nullptr);
  EXPECT_EQ(v2->record_layout, BRICKPROF__RECORD_LAYOUT);
  EXPECT_NE(v2->set_host_peaks, nullptr);
  EXPECT_NE(v2->mem_alloc, nullptr);
  EXPECT_NE(v2->mem_free, nullptr);
  EXPECT_NE(v2->set_shapes, nullptr);
}

TEST(HeaderAbi, OlderAgentWithoutHostPeaksIsNotCalled) {
  make_table(offsetof(brickprof__api_table, set_host_peaks));  // the table before the field
  brickprof_set_host_peaks(100, 20, "probe");
  BRICKPROF_SET_HOST_PEAKS(100, 20, "probe");
  EXPECT_EQ(g_calls, 0);
}

TEST(HeaderAbi, AgentWithHostPeaksIsCalled) {
  make_table(sizeof(brickprof__api_table));
  brickprof_set_host_peaks(100, 20, "probe");
  EXPECT_EQ(g_calls, 1);
  EXPECT_DOUBLE_EQ(g_gbps, 20);
}

// An agent built before the memory and shape entries: none is called.
TEST(HeaderAbi, OlderAgentWithoutMemoryOrShapesIsNotCalled) {
  make_table(offsetof(brickprof__api_table, mem_alloc));  // the table before them
  int block = 0;
  const int64_t dims[] = {1, 8}, out[] = {1, 8};
  const uint32_t ranks[] = {2};
  brickprof_mem_alloc(&block, 64, "kv_cache");
  brickprof_mem_free(&block, "kv_cache");
  brickprof_set_shapes("f32", dims, ranks, 1, out, 2);
  brickprof_set_shapes("f32", {{1, 8}}, {1, 8});
  BRICKPROF_MEM_ALLOC(&block, 64, "kv_cache");
  BRICKPROF_MEM_FREE(&block, "kv_cache");
  BRICKPROF_SET_SHAPES("f32", dims, ranks, 1, out, 2);
  EXPECT_EQ(g_calls, 0);
}

// One with mem_alloc but not yet mem_free or set_shapes (each is checked
// on its own, as a table grows one field at a time).
TEST(HeaderAbi, EachAppendedEntryIsCheckedOnItsOwn) {
  make_table(offsetof(brickprof__api_table, mem_free));
  int block = 0;
  brickprof_mem_alloc(&block, 64, "kv_cache");
  brickprof_mem_free(&block, "kv_cache");
  brickprof_set_shapes("f32", {{1}}, {1});
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_bytes, 64u);
}

TEST(HeaderAbi, MemoryCallsReachTheAgentAsMade) {
  make_table(sizeof(brickprof__api_table));
  int block = 0;
  brickprof_mem_alloc(&block, 4096, "weights");
  EXPECT_EQ(g_ptr, &block);
  EXPECT_EQ(g_bytes, 4096u);
  EXPECT_EQ(g_pool, "weights");
  BRICKPROF_MEM_FREE(&block, nullptr);
  EXPECT_EQ(g_ptr, &block);
  EXPECT_EQ(g_pool, "(null)");
  EXPECT_EQ(g_calls, 2);
}

// The C call and the C++ lists hand the agent the same arrays, also past
// the C++ form's stack buffer (16 inputs, 16 dims).
TEST(HeaderAbi, ShapesReachTheAgentAsLaidOut) {
  make_table(sizeof(brickprof__api_table));
  const int64_t dims[] = {1, 4096, 4096, 4096}, out[] = {1, 4096};
  const uint32_t ranks[] = {2, 2};
  brickprof_set_shapes("f32", dims, ranks, 2, out, 2);
  EXPECT_EQ(g_dtype, "f32");
  EXPECT_EQ(g_ranks, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(g_dims, (std::vector<int64_t>{1, 4096, 4096, 4096}));
  EXPECT_EQ(g_out, (std::vector<int64_t>{1, 4096}));

  brickprof_set_shapes("q4_k", {{4096, 4096}, {}, {7}}, {});
  EXPECT_EQ(g_dtype, "q4_k");
  EXPECT_EQ(g_ranks, (std::vector<uint32_t>{2, 0, 1}));
  EXPECT_EQ(g_dims, (std::vector<int64_t>{4096, 4096, 7}));
  EXPECT_TRUE(g_out.empty());

  brickprof_set_shapes("bf16",
                       {{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}, {17, 18}},
                       {1, 2, 3});
  EXPECT_EQ(g_ranks, (std::vector<uint32_t>{4, 4, 4, 4, 2}));
  ASSERT_EQ(g_dims.size(), 18u);
  for (size_t i = 0; i < g_dims.size(); ++i) EXPECT_EQ(g_dims[i], static_cast<int64_t>(i + 1));
  EXPECT_EQ(g_out, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(g_calls, 3);
}

TEST(HeaderAbi, OlderAgentWithoutChecksumIsNotCalled) {
  make_table(offsetof(brickprof__api_table, checksum));  // the table before the field
  const float out[3] = {1, 2, 3};
  brickprof_checksum("out", out, 3, "f32");
  BRICKPROF_CHECKSUM("out", out, 3, "f32");
  EXPECT_EQ(g_calls, 0);
}

TEST(HeaderAbi, AgentWithChecksumIsCalled) {
  make_table(sizeof(brickprof__api_table));
  const float out[3] = {1, 2, 3};
  brickprof_checksum("out", out, 3, "f32");
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_checksum_count, 3u);
}

TEST(HeaderAbi, OlderAgentWithoutCountersIsNotCalled) {
  make_table(offsetof(brickprof__api_table, counter));  // the table before the fields
  brickprof_counter("l2_hit_rate", 0.5);
  brickprof_tokens(3);
  BRICKPROF_COUNTER("l2_hit_rate", 0.5);
  BRICKPROF_TOKENS(3);
  EXPECT_EQ(g_calls, 0);
  make_table(offsetof(brickprof__api_table, tokens));  // counter, not yet tokens
  brickprof_tokens(3);
  EXPECT_EQ(g_calls, 0);
}

TEST(HeaderAbi, AgentWithCountersIsCalled) {
  make_table(sizeof(brickprof__api_table));
  g_tokens = 0;
  brickprof_counter("l2_hit_rate", 0.75);
  BRICKPROF_TOKENS(2);
  brickprof_tokens(5);
  EXPECT_EQ(g_calls, 3);
  EXPECT_EQ(g_counter, 0.75);
  EXPECT_EQ(g_tokens, 7u);
}

// An agent whose table ends before `tile` knows no tile record: the header
// neither calls it nor writes one (its fast path stays off for tiles).
TEST(HeaderAbi, OlderAgentWithoutTilesIsNotCalled) {
  make_table(offsetof(brickprof__api_table, tile_ticks));
  g_table.fast_state = BRICKPROF__FAST_CALL;
  { BRICKPROF_TILE(BRICKPROF_TILE_MICRO, 1, 4); }
  brickprof_tile tile = brickprof_tile_begin();
  EXPECT_EQ(tile.how, 0);
  brickprof_tile_end(tile, BRICKPROF_TILE_MIDI, 1, 4);
  make_table(offsetof(brickprof__api_table, tile));  // tile_ticks, not yet tile
  g_table.fast_state = BRICKPROF__FAST_CALL;
  BRICKPROF_TILE_END(BRICKPROF_TILE_BEGIN(), BRICKPROF_TILE_MACRO, 1, 4);
  EXPECT_EQ(g_calls, 0);
}

// Where the header cannot write the record (here: the agent says "call"),
// a tile is the agent's clock read twice and one call with what it took.
TEST(HeaderAbi, AgentWithTilesIsCalled) {
  make_table(sizeof(brickprof__api_table));
  g_table.fast_state = BRICKPROF__FAST_CALL;
  { BRICKPROF_TILE(BRICKPROF_TILE_MIDI, 100, 400); }
  EXPECT_EQ(g_calls, 3);
  EXPECT_EQ(g_tile_level, BRICKPROF_TILE_MIDI);
  EXPECT_EQ(g_tile_ticks, 10u);
  EXPECT_EQ(g_tile_elements, 100u);
  EXPECT_EQ(g_tile_bytes, 400u);
  g_table.fast_state = BRICKPROF__FAST_OFF;  // not recording: not even the clock
  brickprof_tile_end(brickprof_tile_begin(), BRICKPROF_TILE_MICRO, 1, 1);
  EXPECT_EQ(g_calls, 3);
}

TEST(HeaderAbi, CacheBandwidthReachesOnlyAnAgentThatHasIt) {
  make_table(offsetof(brickprof__api_table, set_cache_bandwidth));
  BRICKPROF_SET_CACHE_BANDWIDTH(100, 50, 25);
  EXPECT_EQ(g_calls, 0);
  make_table(sizeof(brickprof__api_table));
  brickprof_set_cache_bandwidth(100, 50, 25);
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_cache[0], 100);
  EXPECT_EQ(g_cache[1], 50);
  EXPECT_EQ(g_cache[2], 25);
}
