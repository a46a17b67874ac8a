// A signal that lands inside the agent's critical sections is held until
// the outermost one ends, then raised again (see agent/lifecycle/critical_section.h).
#include <gtest/gtest.h>
#include <signal.h>

#include <mutex>

#include "agent/lifecycle/critical_section.h"

namespace brickprof::agent {
namespace {

volatile sig_atomic_t g_handled = 0;
volatile sig_atomic_t g_lock_was_free = 0;
std::mutex g_mu;

// As the agent's handler: inside a section, hold the signal and return.
void on_signal(int sig) {
  if (CriticalSection::inside()) {
    CriticalSection::hold(sig);
    return;
  }
  g_handled = g_handled + 1;
  if (g_mu.try_lock()) {
    g_lock_was_free = 1;
    g_mu.unlock();
  }
}

class CriticalSectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, &previous_);
    g_handled = 0;
    g_lock_was_free = 0;
  }
  void TearDown() override { sigaction(SIGUSR1, &previous_, nullptr); }
  struct sigaction previous_ {};
};

TEST_F(CriticalSectionTest, OutsideEverySectionTheSignalRunsAtOnce) {
  raise(SIGUSR1);
  EXPECT_EQ(g_handled, 1);
}

TEST_F(CriticalSectionTest, HeldUntilTheOutermostSectionEnds) {
  {
    CriticalSection outer;
    {
      CriticalSection inner;
      raise(SIGUSR1);
      EXPECT_EQ(g_handled, 0);
    }
    EXPECT_EQ(g_handled, 0);  // still inside the outer one
  }
  EXPECT_EQ(g_handled, 1);
  EXPECT_FALSE(CriticalSection::inside());
}

TEST_F(CriticalSectionTest, AgentLockReleasesTheLockBeforeTheSignalRuns) {
  {
    AgentLock lock(g_mu);
    raise(SIGUSR1);
    EXPECT_EQ(g_handled, 0);
  }
  EXPECT_EQ(g_handled, 1);
  EXPECT_EQ(g_lock_was_free, 1);
}

}  // namespace
}  // namespace brickprof::agent
