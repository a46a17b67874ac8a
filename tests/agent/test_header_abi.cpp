// The public header against agent tables of other sizes: a function the
// table gained after an agent was built is never called through that
// agent's table (its `size` says it is not there), so a program built with
// a newer header runs under an older agent. This program exports its own
// brickprof_get_api, which the header's lazy binding finds first.
#include <brickprof/brickprof.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>

namespace {

brickprof_api g_table;
int g_calls = 0;
double g_gbps = 0;

void fake_set_host_peaks(double, double gbps, const char*) {
  ++g_calls;
  g_gbps = gbps;
}

// A version-2 table `size` bytes long; the memory after it still holds a
// callable pointer, so a header that ignored `size` would call it.
void make_table(size_t size) {
  std::memset(&g_table, 0, sizeof g_table);
  g_table.abi_version = BRICKPROF_ABI_VERSION;
  g_table.size = static_cast<uint32_t>(size);
  g_table.fast_state = BRICKPROF_FAST_OFF;
  g_table.set_host_peaks = fake_set_host_peaks;
  g_calls = 0;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const brickprof_api* brickprof_get_api(uint32_t) {
  return &g_table;
}

TEST(HeaderAbi, OlderAgentWithoutHostPeaksIsNotCalled) {
  make_table(offsetof(brickprof_api, set_host_peaks));  // the table before the field
  brickprof_set_host_peaks(100, 20, "probe");
  BRICKPROF_SET_HOST_PEAKS(100, 20, "probe");
  EXPECT_EQ(g_calls, 0);
}

TEST(HeaderAbi, AgentWithHostPeaksIsCalled) {
  make_table(sizeof(brickprof_api));
  brickprof_set_host_peaks(100, 20, "probe");
  EXPECT_EQ(g_calls, 1);
  EXPECT_DOUBLE_EQ(g_gbps, 20);
}
