// Critical path, slack and what-if on hand-checked traces (the seed's
// example on threads and on streams, a serial trace, a cycle).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "analysis/analyses/critical_path.h"
#include "test_util.h"
#include "tests/support/read_file.h"
#include "tests/support/trace_builder.h"
#include "trace/json/trace_json.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

Trace load(const std::string& name) {
  return read_trace_file(std::string(ANALYSES_DATA) + "/" + name);
}

std::string slurp(const std::string& name) {
  return test::read_file(std::string(ANALYSES_DATA) + "/" + name);
}

uint32_t find(const Trace& t, std::string_view name) {
  for (uint32_t i = 0; i < t.nodes.size(); ++i)
    if (t.name(t.nodes[i]) == name) return i;
  return kNoNode;
}

int64_t slack_of(const CriticalPath& cp, uint32_t node) {
  for (const NodeSlack& s : cp.nodes)
    if (s.node == node) return s.slack_ns;
  return -1;
}

TEST(CriticalPath, SeedExampleOnThreadsMatchesGolden) {
  Trace t = load("seed_threads.json");
  std::ostringstream out;
  out << test::render("critical-path", t, {}, false);
  EXPECT_EQ(out.str(), slurp("seed_threads.critical_path.txt"));
}

TEST(CriticalPath, SeedExampleOnThreadsNumbers) {
  Trace t = load("seed_threads.json");
  DependencyGraph g = build_dependency_graph(t);
  CriticalPath cp = compute_critical_path(t, g);
  EXPECT_EQ(cp.length_ns, 700'000);
  ASSERT_EQ(cp.steps.size(), 3u);
  EXPECT_EQ(cp.steps[0].node, find(t, "RmsNorm"));
  EXPECT_EQ(cp.steps[2].duration_ns, 400'000);
  EXPECT_EQ(slack_of(cp, find(t, "AttentionScore")), 100'000);
  EXPECT_EQ(slack_of(cp, find(t, "QkvProjection")), 0);
  EXPECT_TRUE(cp.parallel());
}

TEST(CriticalPath, WhatIfReevaluatesThePath) {
  Trace t = load("seed_threads.json");
  DependencyGraph g = build_dependency_graph(t);
  // RmsNorm 2x: everything after it moves 50 µs earlier.
  EXPECT_EQ(what_if(t, g, "RmsNorm", 2).after_ns, 650'000);
  // Off the path: no gain at all (subtracting would have claimed 50 µs).
  EXPECT_EQ(what_if(t, g, "AttentionScore", 2).saved_ns(), 0);
  // QkvProjection 4x: 150 µs shorter, but AttentionScore (ends at 200) now
  // binds GateProjection: the gain stops at 100 µs.
  EXPECT_EQ(what_if(t, g, "QkvProjection", 4).saved_ns(), 100'000);
  EXPECT_EQ(what_if(t, g, "Nope", 2).matched_activities, 0u);
}

TEST(CriticalPath, SeedExampleOnStreams) {
  Trace t = load("seed_streams.json");
  DependencyGraph g = build_dependency_graph(t);
  CriticalPath cp = compute_critical_path(t, g);
  // 0.5 µs of CPU before the first launch, three kernels, the unexplained
  // 0.5 µs of the synchronise, 0.5 µs of layer after it.
  EXPECT_EQ(cp.length_ns, 701'500);
  std::vector<std::string> names;
  for (const PathStep& s : cp.steps) names.emplace_back(t.name(t.nodes[s.node]));
  EXPECT_EQ(names, (std::vector<std::string>{"RmsNorm", "rmsnorm_kernel", "qkv_gemv", "gate_gemv",
                                             "cudaStreamSynchronize", "Layer 0"}));
  EXPECT_EQ(slack_of(cp, find(t, "attention_score")), 100'000);
  EXPECT_EQ(what_if(t, g, "AttentionScore", 2).saved_ns(), 0);
  EXPECT_EQ(what_if(t, g, "GateProjection", 2).saved_ns(), 200'000);
  EXPECT_EQ(what_if(t, g, "rmsnorm_kernel", 4).saved_ns(), 75'000);
}

TEST(CriticalPath, SerialTraceIsTheTimeline) {
  Trace t = load("serial.json");
  std::ostringstream out;
  out << test::render("critical-path", t, {}, false);
  EXPECT_EQ(out.str(),
            "Critical Path: 350.0µs (3 nodes)\n"
            "──────────────────────────────────────────────────\n"
            "┌ RmsNorm (100.0µs)\n"
            "│ (untracked CPU time) (50.0µs)\n"
            "└ QkvProjection (200.0µs)\n"
            "No cross-stream or cross-thread work: the critical path is the timeline itself.\n");
}

// With capture windows, time between them was not recorded: the untracked
// gap between two scopes counts only where a window covers it.
TEST(CriticalPath, TimeOutsideCaptureWindowsIsNotOnThePath) {
  Trace t = load("serial.json");  // RmsNorm [0, 100 µs], QkvProjection [150, 350 µs]
  t.diagnostics.capture_windows = {{0, 110'000}, {140'000, 350'000}};
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.length_ns, 320'000);  // 100 + 10 + 10 + 200: the 30 µs between windows left out
  int64_t untracked = 0;
  for (const PathStep& s : cp.steps)
    if (s.node == kNoNode) untracked += s.duration_ns;
  EXPECT_EQ(untracked, 20'000);
  EXPECT_EQ(cp.measured_span_ns, 320'000);  // the span, less the 30 µs between windows
  t.diagnostics.capture_windows = {{0, 100'000}, {150'000, 350'000}};  // the gap wholly outside
  EXPECT_EQ(compute_critical_path(t, build_dependency_graph(t)).length_ns, 300'000);
}

// Scope S [0, 20 µs] on thread 1; k1 on stream 7 launched at [1.0, 1.1],
// GPU [1.5, 9.0]; cuEventRecord of event 5 on stream 7 at [1.2, 1.3]; then
// a host wait at [1.4, 9.5]: on the stream, or on the event.
Trace record_then_wait(SyncKind wait_kind) {
  Trace t;
  const uint32_t s = test::add_node(t, {.name = "S", .thread = 1, .end_ns = 20'000});
  GpuDetail k;
  k.stream = 7;
  k.api_start_ns = 1'000;
  k.api_end_ns = 1'100;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kKernel,
                      .name = "k1",
                      .parent = s,
                      .thread = 1,
                      .start_ns = 1'500,
                      .end_ns = 9'000},
                     k);
  GpuDetail record;
  record.stream = 7;
  record.sync = SyncKind::kEvent;
  record.event = 5;
  record.api_start_ns = 1'200;
  record.api_end_ns = 1'300;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kSync,
                      .name = "cuEventRecord",
                      .parent = s,
                      .thread = 1,
                      .start_ns = 1'200,
                      .end_ns = 1'300},
                     record);
  GpuDetail wait;
  wait.stream = 7;
  wait.sync = wait_kind;
  wait.event = 5;
  wait.api_start_ns = 1'400;
  wait.api_end_ns = 9'500;
  test::add_gpu_node(
      t,
      {.kind = NodeKind::kSync,
       .name = wait_kind == SyncKind::kEvent ? "cuEventSynchronize" : "cuStreamSynchronize",
       .parent = s,
       .thread = 1,
       .start_ns = 1'400,
       .end_ns = 9'500},
      wait);
  return t;
}

// The wait's own part is what is left after the GPU work it waits for
// finished (k1 at 9.0 µs): 0.5 µs, whether it waits on the stream (whose
// last operation is the record) or on the event. The record's host call
// ended at 1.3 µs, but the event completes when k1 does.
TEST(CriticalPath, AnEventRecordDoesNotStretchAHostWait) {
  for (SyncKind kind : {SyncKind::kStream, SyncKind::kEvent}) {
    Trace t = record_then_wait(kind);
    CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
    EXPECT_EQ(cp.length_ns, 19'500) << to_string(kind);  // S 1.0 + k1 7.5 + wait 0.5 + S 10.5
    EXPECT_EQ(cp.measured_span_ns, 20'000) << to_string(kind);
    int64_t wait = -1;
    for (const PathStep& s : cp.steps)
      if (s.node != kNoNode && t.nodes[s.node].kind == NodeKind::kSync) wait = s.duration_ns;
    EXPECT_EQ(wait, 500) << to_string(kind);
  }
}

// Windows [1, 2] and [5, 6] µs, a "step" filling each on thread 1, X [5.2,
// 5.3] on thread 2. Time between the windows is left out for every thread
// alike: X starts 0.2 µs into the second window's recorded time, so the path
// is the two steps (2 µs, the measured span) and X has 0.7 µs of slack.
TEST(CriticalPath, CaptureWindowsLeaveTheSameTimeOutOfEveryThread) {
  Trace t;
  t.diagnostics.capture = "scope:step";
  t.diagnostics.capture_windows = {{1'000, 2'000}, {5'000, 6'000}};
  const uint32_t first =
      test::add_node(t, {.name = "step", .thread = 1, .start_ns = 1'000, .end_ns = 2'000});
  const uint32_t second =
      test::add_node(t, {.name = "step", .thread = 1, .start_ns = 5'000, .end_ns = 6'000});
  const uint32_t x =
      test::add_node(t, {.name = "X", .thread = 2, .start_ns = 5'200, .end_ns = 5'300});
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.measured_span_ns, 2'000);
  EXPECT_EQ(cp.length_ns, 2'000);
  EXPECT_EQ(slack_of(cp, first), 0);
  EXPECT_EQ(slack_of(cp, second), 0);
  EXPECT_EQ(slack_of(cp, x), 700);
}

// One blocking pageable copy: its API call [0.1, 10] µs, the copy on the GPU
// [2, 9]. The run measured lasted until the call returned: 9.9 µs, all of
// it explained (1.9 µs before the copy started, 7 µs of copy, 1 µs after).
TEST(CriticalPath, TheMeasuredSpanEndsWhenABlockingCallReturns) {
  Trace t;
  GpuDetail d;
  d.direction = Direction::kH2D;
  d.src_kind = MemoryKind::kPageable;
  d.dst_kind = MemoryKind::kDevice;
  d.bytes = 1 << 20;
  d.api_start_ns = 100;
  d.api_end_ns = 10'000;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kTransfer,
                      .name = "cuMemcpyHtoD",
                      .thread = 1,
                      .start_ns = 2'000,
                      .end_ns = 9'000},
                     d);
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.length_ns, 9'900);
  EXPECT_EQ(cp.measured_span_ns, 9'900);
  const std::string text = test::render("critical-path", t);
  EXPECT_EQ(text.find("not explained"), std::string::npos) << text;
}

// A depends_on edge joins whole scopes: C (thread 2) waits for A with the
// scope B nested in it (thread 1, until 100 ns), not for A's own time
// (until 50 ns). Path: A's 50 ns, B's 50 ns, then C's 80 ns.
TEST(CriticalPath, ADependencyWaitsForTheWholeSourceScope) {
  Trace t;
  const uint32_t a = test::add_node(t, {.name = "A", .thread = 1, .end_ns = 100});
  test::add_node(t, {.name = "B", .parent = a, .thread = 1, .start_ns = 50, .end_ns = 100});
  const uint32_t c = test::add_node(t, {.name = "C", .thread = 2, .start_ns = 120, .end_ns = 200});
  t.add_edge(a, c, EdgeType::kDependsOn);
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.length_ns, 180);
}

// ...and reaches the destination's first nested scope: D, open from C's
// start, runs after A, so the path is A, D, C (not D alone from its start).
TEST(CriticalPath, ADependencyHoldsTheDestinationsNestedScopes) {
  Trace t;
  const uint32_t a = test::add_node(t, {.name = "A", .thread = 1, .end_ns = 100});
  const uint32_t c = test::add_node(t, {.name = "C", .thread = 2, .start_ns = 100, .end_ns = 200});
  const uint32_t d =
      test::add_node(t, {.name = "D", .parent = c, .thread = 2, .start_ns = 100, .end_ns = 150});
  t.add_edge(a, c, EdgeType::kSequence);
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.length_ns, 200);
  EXPECT_EQ(cp.start_offset_ns, 0);
  std::vector<uint32_t> steps;
  for (const PathStep& s : cp.steps) steps.push_back(s.node);
  EXPECT_EQ(steps, (std::vector<uint32_t>{a, d, c}));
}

// A thread's timeline runs from its first scope, wait or launch to its
// last: the time between its last scope and a later launch is untracked
// work on it, so the kernel cannot start before the launch. S [100, 200],
// then k launched at 300, run [320, 400]: 100 + 100 + 80, and 20 ns of
// launch latency the model leaves out.
TEST(CriticalPath, ALaunchAfterTheLastScopeIsOnTheThreadsTimeline) {
  Trace t;
  test::add_node(t, {.name = "S", .thread = 1, .start_ns = 100, .end_ns = 200});
  GpuDetail k;
  k.api_start_ns = 300;
  k.api_end_ns = 310;
  test::add_gpu_node(
      t, {.kind = NodeKind::kKernel, .name = "k", .thread = 1, .start_ns = 320, .end_ns = 400}, k);
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.length_ns, 280);
  EXPECT_EQ(cp.measured_span_ns, 300);
}

// A hand-made trace without API times: the kernel's launch is taken at its
// start (50 ns), inside the host wait [20, 80] of the thread that launched
// it. A blocked thread issues nothing: the launch came before the wait, so
// the kernel does not follow it (which made a 120 ns path of a 100 ns run).
TEST(CriticalPath, ALaunchTimeInsideAHostWaitCountsAsBeforeIt) {
  Trace t;
  const uint32_t s = test::add_node(t, {.name = "S", .thread = 1, .end_ns = 100});
  GpuDetail wait;
  wait.stream = 1;
  wait.sync = SyncKind::kStream;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kSync,
                      .name = "cudaStreamSynchronize",
                      .parent = s,
                      .thread = 1,
                      .start_ns = 20,
                      .end_ns = 80},
                     wait);
  GpuDetail k;
  k.stream = 1;
  test::add_gpu_node(t,
                     {.kind = NodeKind::kKernel,
                      .name = "k",
                      .parent = s,
                      .thread = 1,
                      .start_ns = 50,
                      .end_ns = 90},
                     k);
  CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
  EXPECT_EQ(cp.measured_span_ns, 100);
  EXPECT_EQ(cp.length_ns, 100);
}

// A start/end range (NVTX) on a range lane is an annotation: a long one must
// not become the critical path, nor add a lane of parallel work.
TEST(CriticalPath, RangeLanesAreNotWork) {
  Trace t = load("serial.json");
  std::ostringstream before;
  before << test::render("critical-path", t, {}, false);
  Node range;
  range.kind = NodeKind::kScope;
  range.name = t.strings.intern("async_load");
  range.thread = kRangeLaneBase;
  range.start_ns = t.nodes.front().start_ns;
  for (const Node& n : t.nodes) {  // the whole run, as long as the path itself
    range.start_ns = std::min(range.start_ns, n.start_ns);
    range.end_ns = std::max(range.end_ns, n.end_ns);
  }
  t.add_node(range);
  std::ostringstream after;
  after << test::render("critical-path", t, {}, false);
  EXPECT_EQ(after.str(), before.str());
}

TEST(CriticalPath, CycleIsAClearError) {
  Trace t = load("cycle.json");
  try {
    build_dependency_graph(t);
    FAIL() << "expected a GraphError";
  } catch (const GraphError& e) {
    EXPECT_NE(std::string(e.what()).find("dependency cycle"), std::string::npos);
  }
}

TEST(CriticalPath, LongChainHasNoRecursion) {
  // 10^6 nested scopes and a 10^6-long sequence chain: depth never recurses.
  Trace t;
  const uint32_t n = 1'000'000;
  for (uint32_t i = 0; i < n; ++i) {
    test::add_node(t, {.name = "s",
                       .parent = i ? i - 1 : kNoNode,
                       .start_ns = i,
                       .end_ns = 2 * static_cast<int64_t>(n) - i});
    if (i) t.add_edge(i - 1, i, EdgeType::kContains);
  }
  DependencyGraph g = build_dependency_graph(t);
  CriticalPath cp = compute_critical_path(t, g);
  EXPECT_EQ(cp.length_ns, 2 * static_cast<int64_t>(n));
}

// The path names nodes as the tree and every other text output do (one
// label, queries.h): unnamed layers by index, unnamed bricks by their
// well-known name, copies by direction.
TEST(CriticalPath, LabelsAreTheTreesLabels) {
  Trace t = load("unnamed.json");
  CriticalPathReport r = critical_path_report(t, build_dependency_graph(t));
  ASSERT_FALSE(r.path.steps.empty());
  for (const PathStep& s : r.path.steps) {
    if (s.node != kNoNode) {
      EXPECT_EQ(owner_label(t, s.node), node_label(t, t.nodes[s.node]));
    }
  }
  EXPECT_EQ(owner_label(t, r.path.steps.front().node), "Layer 3");
  EXPECT_EQ(owner_label(t, kNoNode), "(untracked CPU time)");
  const std::string text = test::render("critical-path", t);
  EXPECT_NE(text.find("│ RmsNorm (10.0µs)"), std::string::npos) << text;
  EXPECT_NE(text.find("  H2D slack="), std::string::npos) << text;
  EXPECT_NE(text.find("  D2H slack="), std::string::npos) << text;
  EXPECT_EQ(text.find("cudaMemcpyAsync"), std::string::npos) << text;
}

TEST(CriticalPath, WhatIfSpecErrors) {
  Trace t = load("seed_threads.json");
  const View& view = *find_view("what-if");
  ViewSettings settings;
  EXPECT_THROW(view.add_value("RmsNorm", settings), ViewError);
  EXPECT_THROW(view.add_value("RmsNorm=0", settings), ViewError);
  EXPECT_THROW(view.add_value("RmsNorm=abc", settings), ViewError);
  EXPECT_TRUE(settings.what_if.empty());
  WhatIfSpec spec = parse_what_if_spec("Layer=1=2.5x");  // the last '=' splits
  EXPECT_EQ(spec.name, "Layer=1");
  EXPECT_EQ(spec.factor, 2.5);
  EXPECT_THROW(parse_what_if_spec("=2"), ViewError);
  view.add_value("RmsNorm=2x", settings);
  EXPECT_EQ(test::render("what-if", t, settings),
            "What-if: RmsNorm 2x faster shortens the run by 50.0µs (7.1%): 700.0µs -> 650.0µs\n");
}

}  // namespace
}  // namespace brickprof
