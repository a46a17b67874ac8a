// Capture windows (BRICKPROF_CAPTURE): which events the recorder keeps, the
// windows it notes, and how the replay ends scopes a window cut.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "tests/agent/support/replay_oracle.h"

namespace brickprof::agent {
namespace {

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Clock::init();
    capture::configure(capture::Mode::kAll, "");
    Recorder::reset_after_fork();  // a clean slate for each test
    Recorder::set_capacity(64ull << 20);
  }
  void TearDown() override { capture::configure(capture::Mode::kAll, ""); }
  Trace replay_all(ReplayResult* result,
                   const std::vector<capture::Window>& windows = capture::windows()) {
    Trace trace;
    clock_ = Clock::fit_now();
    *result = replay(Recorder::snapshot(), clock_, Clock::ticks(), trace, windows);
    return trace;
  }
  Clock clock_;  // the conversion the last replay_all used
  static const Node* named(const Trace& t, std::string_view name) {
    for (const Node& n : t.nodes)
      if (t.name(n) == name) return &n;
    return nullptr;
  }
  uint32_t scope(const char* name) { return Recorder::intern_site(NodeKind::kScope, -1, name); }
};

TEST_F(CaptureTest, ScopeNamedLikeTheTriggerOpensAndClosesTheWindow) {
  capture::configure(capture::Mode::kScope, "step");
  uint32_t setup = scope("setup"), step = scope("step"), inner = scope("inner");
  EXPECT_FALSE(Recorder::push(setup, 0));  // before any window: not recorded
  EXPECT_FALSE(Recorder::pop());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(Recorder::push(step, 0));
    EXPECT_TRUE(Recorder::enabled());
    ASSERT_TRUE(Recorder::push(step, 0));  // nested: the same window
    ASSERT_TRUE(Recorder::push(inner, 0));
    EXPECT_TRUE(Recorder::pop());
    EXPECT_TRUE(Recorder::pop());
    EXPECT_TRUE(Recorder::enabled());
    EXPECT_TRUE(Recorder::pop());  // the outermost step: closes the window
    EXPECT_FALSE(Recorder::enabled());
    EXPECT_FALSE(Recorder::push(setup, 0));
    EXPECT_FALSE(Recorder::pop());
  }
  std::vector<capture::Window> windows = capture::windows();
  ASSERT_EQ(windows.size(), 2u);
  for (const capture::Window& w : windows) EXPECT_GT(w.end_tsc, w.start_tsc);
  ReplayResult r;
  Trace t = replay_all(&r, windows);
  ASSERT_EQ(t.nodes.size(), 6u);  // per window: step, step, inner
  EXPECT_EQ(named(t, "setup"), nullptr);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.scopes_cut_by_capture, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  // Every kept event lies inside its window.
  const Clock& clock = clock_;
  for (size_t i = 0; i < 2; ++i) {
    const Node& outer = t.nodes[i * 3];
    EXPECT_EQ(t.name(outer), "step");
    EXPECT_GE(outer.start_ns, clock.to_ns(windows[i].start_tsc));
    EXPECT_LE(outer.end_ns, clock.to_ns(windows[i].end_tsc));
  }
}

TEST_F(CaptureTest, WindowStaysOpenWhileAnyThreadIsInside) {
  capture::configure(capture::Mode::kScope, "request");
  uint32_t request = scope("request");
  ASSERT_TRUE(Recorder::push(request, 0));
  std::thread other([&] {
    ASSERT_TRUE(Recorder::push(request, 0));
    EXPECT_TRUE(Recorder::pop());
  });
  other.join();
  EXPECT_TRUE(Recorder::enabled());  // the other thread left; this one is still inside
  EXPECT_TRUE(Recorder::pop());
  EXPECT_FALSE(Recorder::enabled());
  EXPECT_EQ(capture::windows().size(), 1u);
}

TEST_F(CaptureTest, BricksAndAliasesTrigger) {
  capture::configure(capture::Mode::kScope, "RopeEmbedding");
  uint32_t rope = Recorder::intern_named("Rope", NodeKind::kScope);  // NVTX's alias
  uint32_t layer = Recorder::intern_site(NodeKind::kLayer, -1, "");
  EXPECT_FALSE(Recorder::push(layer, 0));
  ASSERT_TRUE(Recorder::push(rope, 0));
  EXPECT_TRUE(Recorder::pop());
  EXPECT_FALSE(Recorder::pop());  // the layer's: outside
  EXPECT_EQ(capture::windows().size(), 1u);
}

TEST_F(CaptureTest, ProfilerCallsOpenAndCloseWindowsOnlyInTheirMode) {
  uint32_t s = scope("work");
  capture::configure(capture::Mode::kScope, "work");
  capture::profiler_start();
  EXPECT_FALSE(Recorder::enabled());  // not this mode's trigger
  capture::configure(capture::Mode::kCudaProfilerApi, "");
  EXPECT_FALSE(Recorder::push(s, 0));
  EXPECT_FALSE(Recorder::pop());
  capture::profiler_start();
  capture::profiler_start();  // idempotent
  EXPECT_TRUE(capture::window_open());
  ASSERT_TRUE(Recorder::push(s, 0));
  EXPECT_TRUE(Recorder::pop());
  capture::profiler_stop();
  capture::profiler_stop();
  EXPECT_FALSE(capture::window_open());
  EXPECT_FALSE(Recorder::push(s, 0));
  EXPECT_EQ(capture::windows().size(), 1u);
  EXPECT_EQ(capture::why_nothing_was_recorded(), "");
}

// While the trace is written, a thread entering a trigger scope must not
// turn the recorder back on.
TEST_F(CaptureTest, NoWindowOpensWhileTheTraceIsWritten) {
  capture::configure(capture::Mode::kScope, "step");
  uint32_t step = scope("step");
  capture::freeze(true);
  EXPECT_FALSE(Recorder::push(step, 0));
  EXPECT_FALSE(Recorder::enabled());
  EXPECT_TRUE(capture::windows().empty());
  capture::freeze(false);  // a failed exec: recording goes on
  ASSERT_TRUE(Recorder::push(step, 0));
  EXPECT_TRUE(Recorder::pop());
  EXPECT_EQ(capture::windows().size(), 1u);
}

// brickprof_set_enabled() and the windows are two switches: recording
// needs both on, and neither undoes the other.
TEST_F(CaptureTest, TheProgramsSwitchAndTheWindowsBothHold) {
  capture::configure(capture::Mode::kCudaProfilerApi, "");
  capture::set_user_enabled(true);
  EXPECT_FALSE(Recorder::enabled());  // no window: the program cannot force it
  capture::set_user_enabled(false);
  capture::profiler_start();
  EXPECT_FALSE(Recorder::enabled());  // a window does not override the program
  capture::set_user_enabled(true);
  EXPECT_TRUE(Recorder::enabled());
  capture::profiler_stop();
  EXPECT_FALSE(Recorder::enabled());
  capture::configure(capture::Mode::kAll, "");
  EXPECT_TRUE(Recorder::enabled());
  capture::set_user_enabled(false);
  EXPECT_FALSE(Recorder::enabled());
  capture::freeze(true);
  capture::freeze(false);
  EXPECT_FALSE(Recorder::enabled());  // unfreezing keeps the program's choice
}

// Inside a trigger scope a push the recorder drops (here: the program's
// switch off) still asks for its pop, so a C macro (pops always) and
// the C++ scope guard (pops what push accepted) leave the window open alike until
// the trigger's own pop, and the dropped scope's pop is not recorded.
TEST_F(CaptureTest, DroppedPushInsideTheTriggerKeepsTheWindowOpen) {
  capture::configure(capture::Mode::kScope, "step");
  uint32_t step = scope("step"), hidden = scope("hidden"), after = scope("after");
  ASSERT_TRUE(Recorder::push(step, 0));
  capture::set_user_enabled(false);
  EXPECT_TRUE(Recorder::push(hidden, 0));  // not recorded, but its pop must come
  capture::set_user_enabled(true);
  EXPECT_FALSE(Recorder::pop());  // the hidden scope's: not recorded
  EXPECT_TRUE(capture::window_open());
  ASSERT_TRUE(Recorder::push(after, 0));
  EXPECT_TRUE(Recorder::pop());
  EXPECT_TRUE(capture::window_open());
  EXPECT_TRUE(Recorder::pop());  // step's: closes the window
  EXPECT_FALSE(capture::window_open());
  ReplayResult r;
  Trace t = replay_all(&r);
  EXPECT_EQ(t.nodes.size(), 2u);  // step and after
  EXPECT_EQ(named(t, "hidden"), nullptr);
  ASSERT_NE(named(t, "after"), nullptr);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
}

// A recorded scope is closed even if the program switched recording off
// before its pop; levels past the tracked depth are dropped and counted.
TEST_F(CaptureTest, RecordedScopesCloseAndTooDeepOnesAreCounted) {
  capture::configure(capture::Mode::kScope, "step");
  uint32_t step = scope("step"), a = scope("a"), b = scope("b"), deep = scope("deep");
  ASSERT_TRUE(Recorder::push(step, 0));
  ASSERT_TRUE(Recorder::push(a, 0));
  capture::set_user_enabled(false);
  EXPECT_TRUE(Recorder::pop());  // a's push was recorded: so is its pop
  capture::set_user_enabled(true);
  ASSERT_TRUE(Recorder::push(b, 0));
  EXPECT_TRUE(Recorder::pop());
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(Recorder::push(deep, 0));
  for (int i = 0; i < 300; ++i) Recorder::pop();
  EXPECT_TRUE(capture::window_open());
  EXPECT_TRUE(Recorder::pop());  // step's
  EXPECT_FALSE(capture::window_open());
  EXPECT_EQ(Recorder::dropped_events(), 300u - 255u);  // levels 256..300
  ReplayResult r;
  Trace t = replay_all(&r);
  ASSERT_NE(named(t, "b"), nullptr);
  EXPECT_EQ(t.nodes[named(t, "b")->parent].name, named(t, "step")->name);  // not under a
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  EXPECT_EQ(r.scopes_cut_by_capture, 0u);
}

// BRICKPROF_CAPTURE_EVERY=3, _MAX=2: of seven would-be windows, the 1st and
// the 4th are recorded; the rest leave the recorder off, as between windows.
TEST_F(CaptureTest, SamplingRecordsOneWindowInKAndAtMostM) {
  uint32_t step = scope("step");
  capture::configure(capture::Mode::kScope, "step", 3, 2);
  std::vector<int> recorded;
  for (int i = 1; i <= 7; ++i) {
    if (Recorder::push(step, 0)) {
      recorded.push_back(i);
      EXPECT_TRUE(Recorder::enabled());
      EXPECT_TRUE(capture::activity_wanted());
    } else {
      EXPECT_FALSE(Recorder::enabled());
      EXPECT_FALSE(capture::activity_wanted());
    }
    Recorder::pop();
    EXPECT_FALSE(capture::activity_wanted());
  }
  EXPECT_EQ(recorded, (std::vector<int>{1, 4}));
  EXPECT_EQ(capture::windows().size(), 2u);
  EXPECT_EQ(capture::windows_sampled_out(), 5u);
  EXPECT_NE(capture::describe(1.0).find("every 3, at most 2, 5 of 7 would-be windows left out"),
            std::string::npos)
      << capture::describe(1.0);

  capture::configure(capture::Mode::kCudaProfilerApi, "", 2, 0);
  recorded.clear();
  for (int i = 1; i <= 5; ++i) {
    capture::profiler_start();
    if (capture::window_open()) recorded.push_back(i);
    capture::profiler_stop();
  }
  EXPECT_EQ(recorded, (std::vector<int>{1, 3, 5}));
}

// The GPU source's hook runs on every change of the wanted state, and only
// then, with the capture lock released (it may read the windows).
int g_hook_calls = 0;
std::vector<bool> g_hook_saw;
void count_hook() {
  ++g_hook_calls;
  g_hook_saw.push_back(capture::activity_wanted());
  (void)capture::windows();  // takes the capture lock: would deadlock if held
}

TEST_F(CaptureTest, ActivityHookRunsOnEachEdgeWithoutTheCaptureLock) {
  uint32_t step = scope("step"), inner = scope("inner");
  g_hook_calls = 0;
  g_hook_saw.clear();
  capture::set_activity_hook(count_hook);
  capture::configure(capture::Mode::kScope, "step");
  EXPECT_FALSE(capture::activity_wanted());  // off until a window opens
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(Recorder::push(step, 0));
    ASSERT_TRUE(Recorder::push(inner, 0));  // no edge, no call
    Recorder::pop();
    Recorder::pop();
  }
  capture::configure(capture::Mode::kAll, "");
  capture::set_activity_hook(nullptr);
  // configure(scope) turned it off, two windows on and off, configure(all) on.
  EXPECT_EQ(g_hook_saw, (std::vector<bool>{false, true, false, true, false, true}));
  EXPECT_EQ(g_hook_calls, 6);
}

TEST_F(CaptureTest, SaysWhyNothingWasRecorded) {
  EXPECT_EQ(capture::why_nothing_was_recorded(), "");  // all: nothing to explain
  capture::configure(capture::Mode::kCudaProfilerApi, "");
  EXPECT_NE(capture::why_nothing_was_recorded().find("never called cudaProfilerStart"),
            std::string::npos);
  capture::configure(capture::Mode::kScope, "decode token");
  EXPECT_NE(capture::why_nothing_was_recorded().find("scope:decode token"), std::string::npos);
  EXPECT_NE(capture::describe(1.0).find("0 windows"), std::string::npos);
}

// The windows of a multi-threaded run cut other threads' scopes: those
// opened before a window have pops without pushes, and those open when it
// closes end there. Neither is the program's error.
TEST_F(CaptureTest, ReplayEndsScopesTheWindowsCut) {
  uint32_t b = scope("B"), c = scope("C"), d = scope("D"), e = scope("E");
  std::vector<capture::Window> windows(2);
  windows[0].start_tsc = Clock::ticks();
  ASSERT_TRUE(Recorder::push(b, 0));
  ASSERT_TRUE(Recorder::pop());
  ASSERT_TRUE(Recorder::pop());  // A's, opened before the window
  ASSERT_TRUE(Recorder::push(c, 0));
  windows[0].end_tsc = Clock::ticks();  // C is still open
  windows[1].start_tsc = Clock::ticks();
  ASSERT_TRUE(Recorder::push(d, 0));
  ASSERT_TRUE(Recorder::pop());
  ASSERT_TRUE(Recorder::push(e, 0));
  windows[1].end_tsc = Clock::ticks();  // E is still open
  ReplayResult r;
  Trace t = replay_all(&r, windows);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  EXPECT_EQ(r.scopes_cut_by_capture, 3u);  // A's pop, C and E
  const Clock& clock = clock_;
  ASSERT_NE(named(t, "C"), nullptr);
  EXPECT_EQ(named(t, "C")->end_ns, clock.to_ns(windows[0].end_tsc));
  EXPECT_LT(named(t, "C")->end_ns, named(t, "D")->start_ns);
  EXPECT_EQ(named(t, "D")->parent, kNoNode);  // C was closed: D is no child of it
  EXPECT_EQ(named(t, "E")->end_ns, clock.to_ns(windows[1].end_tsc));
}

// One scope open across the gap between two windows is one cut: ended at
// the first window's edge, its pop in the second is not counted again.
TEST_F(CaptureTest, ScopeOpenAcrossAGapIsCutOnce) {
  std::vector<capture::Window> windows(2);
  windows[0].start_tsc = Clock::ticks();
  ASSERT_TRUE(Recorder::push(scope("X"), 0));
  windows[0].end_tsc = Clock::ticks();
  windows[1].start_tsc = Clock::ticks();
  ASSERT_TRUE(Recorder::pop());
  windows[1].end_tsc = Clock::ticks();
  ReplayResult r;
  Trace t = replay_all(&r, windows);
  EXPECT_EQ(r.scopes_cut_by_capture, 1u);
  EXPECT_EQ(r.unbalanced_pops, 0u);
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].end_ns, clock_.to_ns(windows[0].end_tsc));
}

// A start/end range (NVTX) started in a window that closed before its end
// ends with the window, cut, not open until exit.
TEST_F(CaptureTest, RangeStartedInAClosedWindowEndsWithIt) {
  std::vector<capture::Window> windows(1);
  windows[0].start_tsc = Clock::ticks();
  Recorder::range_start(scope("load"), 7);
  windows[0].end_tsc = Clock::ticks();
  ReplayResult r;
  Trace t = replay_all(&r, windows);
  EXPECT_EQ(r.scopes_cut_by_capture, 1u);
  EXPECT_EQ(r.open_scopes_at_exit, 0u);
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].end_ns, clock_.to_ns(windows[0].end_tsc));
}

TEST_F(CaptureTest, WithoutWindowsAPopWithoutPushIsUnbalanced) {
  ASSERT_TRUE(Recorder::pop());
  ASSERT_TRUE(Recorder::push(scope("open"), 0));
  ReplayResult r;
  replay_all(&r, {});
  EXPECT_EQ(r.unbalanced_pops, 1u);
  EXPECT_EQ(r.open_scopes_at_exit, 1u);
  EXPECT_EQ(r.scopes_cut_by_capture, 0u);
}

}  // namespace
}  // namespace brickprof::agent
