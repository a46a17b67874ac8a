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

namespace {

brickprof__api_table g_table;
int g_calls = 0;
double g_gbps = 0;

void fake_set_host_peaks(double, double gbps, const char*) {
  ++g_calls;
  g_gbps = gbps;
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

// A version-2 table `size` bytes long; the memory after it still holds a
// callable pointer, so a header that ignored `size` would call it.
void make_table(size_t size) {
  std::memset(&g_table, 0, sizeof g_table);
  g_table.abi_version = BRICKPROF__ABI_VERSION;
  g_table.size = static_cast<uint32_t>(size);
  g_table.fast_state = BRICKPROF__FAST_OFF;
  g_table.set_host_peaks = fake_set_host_peaks;
  g_table.counter = fake_counter;
  g_table.tokens = fake_tokens;
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
  EXPECT_EQ(offsetof(brickprof__api_table, counter), 80u);
  EXPECT_EQ(offsetof(brickprof__api_table, tokens), 88u);
  EXPECT_EQ(sizeof(brickprof__api_table), 96u);

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
