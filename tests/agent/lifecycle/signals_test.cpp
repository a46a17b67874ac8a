// The agent's signal handling is invisible to the program (signals_app):
// whatever a program asks about or sets for a signal the agent writes its
// trace on reads and behaves as without the agent, and the trace is still
// written when such a signal ends the program.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

using nlohmann::json;

namespace {

using brickprof::test::Result;
using brickprof::test::run;

class SignalsTest : public brickprof::test::PreloadFixture {
 protected:
  Result same_as_without_agent(const std::string& mode) {
    return expect_unchanged({BRICKPROF_SIGNALS_APP, mode});
  }
};

bool warns(const json& t, const std::string& text) {
  for (const json& w : t["diagnostics"]["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// At start every dump signal reads SIG_DFL, as the kernel has it without
// the agent (CPython takes anything else as "someone else's handler").
TEST_F(SignalsTest, QueriesSeeTheDefault) {
  Result r = same_as_without_agent("query");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("start 2: DFL\n"), std::string::npos) << r.out;
  EXPECT_EQ(load_only_output()["nodes"].size(), 1u);
}

TEST_F(SignalsTest, EveryCallReturnsWhatItWouldWithoutTheAgent) {
  Result r = same_as_without_agent("calls");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("h2 ran 1\n"), std::string::npos) << r.out;
}

TEST_F(SignalsTest, OneShotHandlerRunsOnceThenTheSignalKillsWithATrace) {
  Result r = same_as_without_agent("resethand");
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  EXPECT_NE(r.out.find("after one-shot 15: DFL"), std::string::npos) << r.out;
  json t = load_only_output();
  EXPECT_TRUE(warns(t, "killed by SIGTERM")) << t["diagnostics"];
}

// The program's handler runs and exits: the trace is written at exit.
TEST_F(SignalsTest, HandlerThatExitsLeavesATrace) {
  Result r = same_as_without_agent("handler-exit");
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(r.out, "handler ran\n");
  EXPECT_EQ(load_only_output()["nodes"].size(), 1u);
}

// SIG_DFL set again after a handler: the signal kills, and the agent's
// handler is back to write the trace first.
TEST_F(SignalsTest, DefaultSetAgainKillsWithATrace) {
  Result r = same_as_without_agent("default-again");
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  EXPECT_EQ(r.out, "old h1\n");
  json t = load_only_output();
  EXPECT_TRUE(warns(t, "killed by SIGTERM")) << t["diagnostics"];
}

// exec keeps ignored signals ignored and resets handled ones to SIG_DFL;
// the new image sees exactly that.
TEST_F(SignalsTest, ExecHandsTheNewImageTheTruth) {
  Result r = same_as_without_agent("exec-query");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("start 1: IGN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("start 15: DFL"), std::string::npos) << r.out;
}

TEST_F(SignalsTest, ForkedChildInheritsTheProgramsView) {
  Result r = same_as_without_agent("fork-query");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("child 15: h1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("child 3: IGN"), std::string::npos) << r.out;
}

// A vfork child shares the parent's memory but has its own dispositions:
// what it sets is not what the parent sees.
TEST_F(SignalsTest, VforkChildDoesNotChangeTheParentsView) {
  Result r = same_as_without_agent("vfork");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_NE(r.out.find("parent 2: h1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("h1 ran 1"), std::string::npos) << r.out;
}

// Threads swap handlers while the signal keeps arriving: it never meets
// the default, and the last one set is the one that stays.
TEST_F(SignalsTest, ConcurrentSigactionNeverExposesTheDefault) {
  Result r = same_as_without_agent("threads");
  EXPECT_EQ(r.exit_code(), 0) << r.out;
  EXPECT_EQ(r.out, "threads done, SIGHUP h2\n");
}

// glibc's system() ignores SIGINT and SIGQUIT while it waits, and then
// restores what it saved, with its own internal sigaction: a look during it
// sees SIG_IGN, and a look after it the default again.
TEST_F(SignalsTest, SystemIgnoresSigintOnlyWhileItRuns) {
  Result r = same_as_without_agent("system");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "during 2: IGN\nsystem 0\nafter 2: DFL\nafter 3: DFL\n");
}

// Loaded only by CUDA or NVTX injection (dlopen), the agent's sigaction is
// not the one the program calls: it installs no handler the program could
// see (and writes no trace when a signal kills it).
TEST_F(SignalsTest, WithoutTheInterpositionNoHandlerIsInstalled) {
  Result r =
      run({BRICKPROF_SIGNALS_APP, "query"}, {{"LD_PRELOAD", BRICKPROF_INJECTION_LOADER},
                                             {"INJECTION_LOADER_AGENT", BRICKPROF_AGENT_PATH},
                                             {"BRICKPROF_OUTPUT", (dir_ / "out-%p").string()},
                                             {"BRICKPROF_FORMATS", "json"}});
  Result plain = run({BRICKPROF_SIGNALS_APP, "query"}, {});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, plain.out);
  EXPECT_EQ(outputs().size(), 1u);  // the agent did start
}

}  // namespace
