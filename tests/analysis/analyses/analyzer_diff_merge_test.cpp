// Trace analyzer, diff (the gate: spread, common move, counts, floor, the
// runs as a whole; changed code) and multi-rank merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/analyses/critical_path.h"
#include "analysis/analyses/shift.h"
#include "analysis/analyses/trace_analyzer.h"
#include "analysis/analyses/trace_diff.h"
#include "analysis/analyses/trace_merge.h"
#include "analysis/analyses/trace_scope.h"
#include "analysis/analyses/trace_subset.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

TEST(Analyzer, OpsDevicesBalanceCommunication) {
  Trace t = test::load("analyzer.json");
  Analysis a = analyze_trace(t);
  ASSERT_EQ(a.ops.size(), 3u);  // the brick launched GPU work: not an op itself
  EXPECT_EQ(a.ops[0].name, "down_gemv");
  EXPECT_EQ(a.ops[0].count, 2u);
  EXPECT_EQ(a.ops[0].avg_ns(), 150'000);
  EXPECT_EQ(a.total_ns, 450'000);
  EXPECT_EQ(t.name(t.nodes[a.slowest[0]]), "down_gemv");
  EXPECT_DOUBLE_EQ(a.imbalance_ratio, 1.5);  // 300 µs vs a mean of 200 µs
  ASSERT_EQ(a.communication.size(), 1u);
  EXPECT_EQ(a.communication[0].name, "ncclAllReduce_sum");
  EXPECT_NEAR(a.comm_share(a.communication[0]), 100.0 / 450.0, 1e-12);
  ASSERT_EQ(a.devices.size(), 3u);
  EXPECT_EQ(a.devices[0].device, "cpu");
}

TEST(Analyzer, SpreadOfOneCallsDuration) {
  Trace t = test::load("analyzer.json");
  Analysis a = analyze_trace(t);
  EXPECT_EQ(a.ops[0].min_ns, 100'000);     // down_gemv: 200 and 100 µs
  EXPECT_EQ(a.ops[0].median_ns, 100'000);  // nearest rank: the 1st of 2
  EXPECT_EQ(a.ops[0].p99_ns, 200'000);
  EXPECT_EQ(a.ops[0].max_ns, 200'000);
  EXPECT_EQ(ScopeNamer(t)(a.slowest[0]), "DownProjection");

  Trace many;  // 100 calls of 1..100 µs, in shuffled order
  for (int k = 0; k < 100; ++k)
    test::add_gpu_node(
        many, {.kind = NodeKind::kKernel, .name = "gemv", .end_ns = ((k * 37) % 100 + 1) * 1000});
  const OpSummary& s = analyze_trace(many).ops.at(0);
  EXPECT_EQ(s.count, 100u);
  EXPECT_EQ(s.min_ns, 1'000);
  EXPECT_EQ(s.median_ns, 50'000);
  EXPECT_EQ(s.p99_ns, 99'000);
  EXPECT_EQ(s.max_ns, 100'000);
  std::vector<int64_t> one = {7};
  EXPECT_EQ(nearest_rank(one, 0.99), 7);
}

TEST(Analyzer, CommunicationNames) {
  EXPECT_TRUE(is_communication("ncclKernel_AllGather_RING"));
  EXPECT_TRUE(is_communication("reduce_scatter"));
  EXPECT_TRUE(is_communication("all-reduce"));
  EXPECT_FALSE(is_communication("gemv_q4k"));
}

// Limits with the given threshold, and an absolute floor when given (the
// default floor is 5% of BASE's typical time of the kind).
DiffLimits limits(double pct, std::optional<int64_t> min_time_ns = std::nullopt) {
  DiffLimits l;
  l.threshold_pct = pct;
  l.min_time_ns = min_time_ns;
  return l;
}

TEST(Diff, RegressionAndChangedCode) {
  Trace base = test::load("diff_base.json"), next = test::load("diff_new.json");
  TraceDiff d = diff_traces(base, next, limits(5));
  EXPECT_EQ(d.regressions, 2u);  // RmsNorm +10%, gemv +20%
  EXPECT_EQ(d.code_changes, 1u);
  EXPECT_EQ(d.entries[0].name, "gemv");
  EXPECT_TRUE(d.entries[0].code_changed);
  EXPECT_DOUBLE_EQ(d.entries[0].change_pct(), 20.0);
  // gemv is judged against softmax, the other kernel (unchanged); RmsNorm,
  // the only brick, against nothing.
  EXPECT_NEAR(d.entries[0].relative_pct(), 20.0, 1e-9);
  EXPECT_DOUBLE_EQ(d.entries[0].common, 1.0);
  EXPECT_TRUE(d.failed());
  EXPECT_EQ(diff_traces(base, next, limits(25)).regressions, 0u);
  EXPECT_EQ(diff_traces(base, base, limits(0)).regressions, 0u);
  std::ostringstream out;
  diff_text(d, out);
  EXPECT_NE(out.str().find("same name, different code"), std::string::npos);
  EXPECT_NE(out.str().find("FAIL: 2 regression(s): kernel gemv, brick RmsNorm"), std::string::npos)
      << out.str();
}

// A trace of kernels given as (name, PTX hash, duration).
Trace kernels(std::initializer_list<std::tuple<const char*, uint64_t, int64_t>> list) {
  Trace t;
  t.process.program = "app";
  for (const auto& [name, hash, ns] : list) {
    GpuDetail d;
    d.ptx_hash = hash;
    test::add_gpu_node(t, {.kind = NodeKind::kKernel, .name = name, .end_ns = ns}, d);
  }
  return t;
}

// A trace of bricks: `calls` of each (name, duration), the durations
// spread by +-`jitter` ns in a fixed pattern, as a run's calls are.
Trace bricks(std::initializer_list<std::pair<const char*, int64_t>> list, int calls = 50,
             int64_t jitter = 0, const char* program = "app") {
  Trace t;
  t.process.program = program;
  int64_t at = 0;
  for (int c = 0; c < calls; ++c) {
    for (const auto& [name, ns] : list) {
      const int64_t d = ns + jitter * ((c * 7) % 11 - 5) / 5;
      test::add_node(t, {.kind = NodeKind::kBrick, .name = name, .start_ns = at, .end_ns = at + d});
      at += d + 10;
    }
  }
  return t;
}

const DiffEntry* entry(const TraceDiff& d, std::string_view name, uint64_t hash = 0) {
  for (const DiffEntry& e : d.entries)
    if (e.name == name && e.ptx_hash == hash) return &e;
  return nullptr;
}

TEST(Diff, KernelsMatchByNameAndHash) {
  // gemv 0xa is in both (compared as such); 0xb is a new, extra version.
  Trace base = kernels({{"gemv", 0xa, 100}});
  Trace next = kernels({{"gemv", 0xa, 100}, {"gemv", 0xb, 500}});
  TraceDiff d = diff_traces(base, next, limits(5, 1000));
  ASSERT_EQ(d.entries.size(), 2u);
  EXPECT_EQ(d.regressions, 0u);  // the matched version did not change; the new one is small
  EXPECT_EQ(d.code_changes, 0u);
  ASSERT_NE(entry(d, "gemv", 0xb), nullptr);
  EXPECT_EQ(entry(d, "gemv", 0xb)->base_count, 0u);
  EXPECT_EQ(entry(d, "gemv", 0xa)->new_avg_ns, 100);
  // With the default floor (5% of BASE's 100 ns), the new version's 500 ns is new work.
  EXPECT_EQ(diff_traces(base, next, limits(5)).regressions, 1u);
}

TEST(Diff, UnrecordedHashIsNotChangedCode) {
  // Hash 0 means "not recorded": compared by name, never flagged.
  TraceDiff d =
      diff_traces(kernels({{"gemv", 0, 100}}), kernels({{"gemv", 0xb, 200}}), limits(5, 0));
  ASSERT_EQ(d.entries.size(), 1u);
  EXPECT_FALSE(d.entries[0].code_changed);
  EXPECT_TRUE(d.entries[0].regression);
  EXPECT_EQ(d.entries[0].base_ptx_hash, 0u);
  EXPECT_EQ(d.entries[0].ptx_hash, 0xbu);
}

TEST(Diff, AnAbsoluteFloorIsTheTimeAddedOverAllCalls) {
  // One call 1 µs -> 2 µs (+100%): 1 µs more in all, not more than a 1 µs floor.
  TraceDiff one =
      diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2000}}), limits(5, 1000));
  ASSERT_EQ(one.entries.size(), 1u);
  EXPECT_EQ(one.entries[0].added_ns, 1000);
  EXPECT_FALSE(one.entries[0].regression);
  EXPECT_TRUE(one.entries[0].below_floor);
  EXPECT_EQ(one.regressions, 0u);
  EXPECT_EQ(one.below_floor, 1u);
  // One nanosecond more is beyond it.
  TraceDiff over =
      diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2001}}), limits(5, 1000));
  EXPECT_TRUE(over.entries[0].regression);
  EXPECT_FALSE(over.entries[0].below_floor);
  // Faster by a small amount: hidden too, never a regression.
  TraceDiff faster =
      diff_traces(kernels({{"tiny", 0, 2000}}), kernels({{"tiny", 0, 1000}}), limits(5, 1000));
  EXPECT_FALSE(faster.entries[0].regression);
  EXPECT_EQ(faster.below_floor, 1u);
  // A zero floor is the percentage alone.
  EXPECT_EQ(diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2000}}), limits(5, 0))
                .regressions,
            1u);
}

TEST(Diff, CalledMoreOftenIsARegression) {
  // The same cost per call, ten times the calls: 9 µs more in all.
  TraceDiff ten = diff_traces(kernels({{"k", 0, 1000}}),
                              kernels({{"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000},
                                       {"k", 0, 1000}}),
                              limits(5));
  ASSERT_EQ(ten.entries.size(), 1u);
  EXPECT_NEAR(ten.entries[0].relative_pct(), 0.0, 1e-9);
  EXPECT_EQ(ten.entries[0].added_ns, 9000);
  EXPECT_TRUE(ten.entries[0].regression);
}

TEST(Diff, DefaultFloorIsAShareOfBasesTime) {
  // Big takes 96% of the time, Tiny 4% and doubles: it adds 4% of BASE's
  // brick time, not more than the 5% floor.
  Trace base = bricks({{"Big", 96'000}, {"Tiny", 4'000}});
  Trace next = bricks({{"Big", 96'000}, {"Tiny", 8'000}});
  TraceDiff d = diff_traces(base, next, DiffLimits{});
  EXPECT_EQ(d.bricks.base_typical_ns, d.bricks.base_ns);  // no call slower than its median
  EXPECT_EQ(d.bricks.floor_ns, d.bricks.base_ns / 20);
  const DiffEntry* tiny = entry(d, "Tiny");
  ASSERT_NE(tiny, nullptr);
  EXPECT_TRUE(tiny->changed);
  EXPECT_TRUE(tiny->below_floor);
  EXPECT_FALSE(d.failed());
  // Adding 6% of the time it is over the floor.
  Trace more = bricks({{"Big", 96'000}, {"Tiny", 10'000}});
  EXPECT_EQ(diff_traces(base, more, DiffLimits{}).regressions, 1u);
}

TEST(Diff, TheWholeRunsMoveIsNotABricksRegression) {
  // Every brick 40% slower (a busy machine): judged beyond the others' move,
  // none regressed; the totals say the run moved.
  Trace base = bricks({{"A", 10'000}, {"B", 20'000}, {"C", 30'000}, {"D", 20'000}}, 50, 500);
  Trace next = bricks({{"A", 14'000}, {"B", 28'000}, {"C", 42'000}, {"D", 28'000}}, 50, 700);
  TraceDiff d = diff_traces(base, next, DiffLimits{});
  EXPECT_EQ(d.regressions, 0u);
  EXPECT_NEAR(d.bricks.common, 1.4, 0.02);
  EXPECT_NEAR(d.bricks.change_pct(), 40.0, 0.5);
  // ...unless the whole move is gated.
  DiffLimits total;
  total.total_threshold_pct = 10;
  TraceDiff gated = diff_traces(base, next, total);
  ASSERT_EQ(gated.run_problems.size(), 1u);
  EXPECT_NE(gated.run_problems[0].find("--total-threshold"), std::string::npos);
  // One brick doubled on top of that is found.
  Trace doubled = bricks({{"A", 14'000}, {"B", 56'000}, {"C", 42'000}, {"D", 28'000}}, 50, 700);
  TraceDiff one = diff_traces(base, doubled, DiffLimits{});
  ASSERT_EQ(one.regressions, 1u);
  EXPECT_EQ(one.entries[0].name, "B");
  EXPECT_NEAR(one.entries[0].relative_pct(), 100.0, 3.0);
  // With fewer than three others there is no common move to judge by.
  Trace few_base = bricks({{"A", 10'000}, {"B", 20'000}, {"C", 30'000}}, 50, 500);
  Trace few_next = bricks({{"A", 14'000}, {"B", 28'000}, {"C", 42'000}}, 50, 700);
  TraceDiff few = diff_traces(few_base, few_next, DiffLimits{});
  EXPECT_DOUBLE_EQ(few.bricks.common, 1.0);
  EXPECT_EQ(few.regressions, 3u);
}

TEST(Diff, EveryBrickSlowerAlikeIsSaidAndGatedWhenAsked) {
  // A change that slows every brick alike (a debug build, another backend),
  // or a busier machine: beyond the others' move no brick regressed; the
  // text says how far they all moved, and --total-threshold fails on it.
  Trace base = bricks({{"A", 10'000}, {"B", 20'000}, {"C", 30'000}, {"D", 20'000}}, 50, 500);
  Trace next = bricks({{"A", 20'000}, {"B", 40'000}, {"C", 60'000}, {"D", 40'000}}, 50, 1'000);
  TraceDiff d = diff_traces(base, next, DiffLimits{});
  EXPECT_FALSE(d.failed());
  std::ostringstream text;
  diff_text(d, text);
  EXPECT_NE(text.str().find("NOTE: that is a busier machine or a change that slows "
                                      "every brick alike"),
            std::string::npos);
  DiffLimits gated;
  gated.total_threshold_pct = 50;
  TraceDiff g = diff_traces(base, next, gated);
  EXPECT_EQ(g.regressions, 0u);
  ASSERT_EQ(g.run_problems.size(), 1u);
  EXPECT_NE(g.run_problems[0].find("the bricks moved together by 100.0% per call, more than "
                                   "--total-threshold 50.0%"),
            std::string::npos)
      << g.run_problems[0];
  // Faster alike passes the gate.
  EXPECT_FALSE(diff_traces(next, base, gated).failed());
}

TEST(Diff, ASpreadOfCallsWiderThanTheChangeIsNotARegression) {
  // Calls spread over +-40%: a +20% move of one brick's calls is within it
  // for 5 calls, and not for 500.
  Trace base = bricks({{"A", 10'000}, {"B", 10'000}}, 5, 4'000);
  Trace next = bricks({{"A", 12'000}, {"B", 10'000}}, 5, 4'000);
  TraceDiff few = diff_traces(base, next, limits(5, 0));
  EXPECT_EQ(few.regressions, 0u);
  EXPECT_TRUE(entry(few, "A")->within_spread);
  Trace base_many = bricks({{"A", 10'000}, {"B", 10'000}}, 500, 4'000);
  Trace next_many = bricks({{"A", 12'000}, {"B", 10'000}}, 500, 4'000);
  TraceDiff many = diff_traces(base_many, next_many, limits(5, 0));
  EXPECT_EQ(many.regressions, 1u);
  EXPECT_GT(entry(many, "A")->relative_low_pct(), 5.0);
}

// Calls that waited for the CPU (a preemption, a busy neighbour) took 5 to
// 10 times their own time: a share `waiting` (in tenths) of each brick's
// calls, a different share in each run. Judged on each side's fastest
// calls, the same work passes and doubled work fails, whichever run waited
// more; judged on all of them, a run that waited for most of its calls
// looks several times slower, or hides a doubled brick.
Trace waited(int64_t own_ns, int waiting, const char* name = "Gemv") {
  Trace t;
  t.process.program = "app";
  int64_t at = 0;
  for (int c = 0; c < 60; ++c) {
    for (const auto& [brick, ns] : {std::pair{name, own_ns}, std::pair{"A", int64_t{20'000}},
                                    std::pair{"B", int64_t{30'000}}, std::pair{"C", int64_t{25'000}}}) {
      const bool waits = (c * 7) % 10 < waiting && std::string_view(brick) == name;
      const int64_t d = waits ? ns * (5 + c % 6) : ns + (c % 5) * ns / 100;
      test::add_node(t, {.kind = NodeKind::kBrick, .name = brick, .start_ns = at, .end_ns = at + d});
      at += d + 10;
    }
  }
  return t;
}

TEST(Diff, CallsThatWaitedForTheCpuNeitherFailNorHideTheGate) {
  EXPECT_FALSE(diff_traces(waited(40'000, 1), waited(40'000, 6), DiffLimits{}).failed());
  EXPECT_FALSE(diff_traces(waited(40'000, 6), waited(40'000, 1), DiffLimits{}).failed());
  for (auto [base_waits, new_waits] : {std::pair{1, 6}, std::pair{6, 1}}) {
    const TraceDiff doubled =
        diff_traces(waited(40'000, base_waits), waited(80'000, new_waits), DiffLimits{});
    ASSERT_EQ(doubled.regressions, 1u) << base_waits;
    EXPECT_EQ(doubled.entries[0].name, "Gemv");
    EXPECT_NEAR(doubled.entries[0].relative_pct(), 100.0, 5.0);
  }
}

TEST(Diff, ARunThatLostMostOfBaseFails) {
  Trace base = bricks({{"A", 10'000}, {"B", 20'000}, {"C", 30'000}});
  Trace next = bricks({{"A", 10'000}});
  TraceDiff d = diff_traces(base, next, DiffLimits{});
  EXPECT_EQ(d.regressions, 0u);
  ASSERT_EQ(d.run_problems.size(), 1u);
  EXPECT_NE(d.run_problems[0].find("NEW lacks 2 of the 3 bricks of BASE, 83.3% of its brick time"),
            std::string::npos)
      << d.run_problems[0];
  EXPECT_TRUE(d.failed());
  // Nothing recorded at all.
  Trace empty;
  empty.process.program = "app";
  EXPECT_TRUE(diff_traces(base, empty, DiffLimits{}).failed());
  // Nothing to compare in BASE.
  TraceDiff nothing = diff_traces(empty, base, DiffLimits{});
  ASSERT_FALSE(nothing.run_problems.empty());
  EXPECT_NE(nothing.run_problems[0].find("BASE has no bricks or kernels"), std::string::npos);
}

TEST(Diff, AnotherProgramFailsUnlessAllowed) {
  Trace base = bricks({{"A", 10'000}}, 5, 0, "bricklayer");
  Trace next = bricks({{"A", 10'000}}, 5, 0, "ls");
  TraceDiff d = diff_traces(base, next, DiffLimits{});
  ASSERT_EQ(d.run_problems.size(), 1u);
  EXPECT_NE(d.run_problems[0].find("BASE is a run of bricklayer, NEW of ls"), std::string::npos);
  DiffLimits any;
  any.any_program = true;
  EXPECT_FALSE(diff_traces(base, next, any).failed());
}

TEST(Shift, EstimateAndIntervalOfARatio) {
  // Every call exactly twice as long: the ratio is 2 and so are both ends.
  std::vector<int64_t> base = {100, 200, 300, 400, 500}, next = {200, 400, 600, 800, 1000};
  const Shift twice = estimate_shift(base, next);
  EXPECT_NEAR(twice.ratio, 2.0, 1e-9);
  EXPECT_LE(twice.low, 2.0);
  EXPECT_GE(twice.high, 2.0);
  // Two typical durations (prefill and decode): a pure 2x move is still 2.
  std::vector<int64_t> modes, doubled;
  for (int i = 0; i < 60; ++i) modes.push_back(i % 3 == 0 ? 10'000 + i : 1'000 + i);
  for (int64_t v : modes) doubled.push_back(2 * v);
  const Shift bimodal = estimate_shift(modes, doubled);
  EXPECT_NEAR(bimodal.ratio, 2.0, 0.02);
  EXPECT_GT(bimodal.low, 1.9);
  // The same calls: 1, and an interval around it.
  std::vector<int64_t> a = modes, b = modes;
  const Shift same = estimate_shift(a, b);
  EXPECT_NEAR(same.ratio, 1.0, 1e-9);
  EXPECT_LT(same.low, 1.0);
  EXPECT_GT(same.high, 1.0);
  // More than 256 calls are summarised by quantiles: the same estimate, the
  // interval of 256 calls.
  std::vector<int64_t> big, big2;
  for (int i = 0; i < 100'000; ++i) big.push_back(1000 + (i * 7919) % 1000);
  for (int64_t v : big) big2.push_back(3 * v);
  const Shift summarised = estimate_shift(big, big2);
  EXPECT_NEAR(summarised.ratio, 3.0, 0.01);
  EXPECT_GT(summarised.low, 2.8);
  EXPECT_LT(summarised.high, 3.2);
}

TEST(Merge, KeepsOnePtxModulePerHash) {
  Trace a, b;
  PtxModule m;
  m.hash = 0x1;
  a.ptx.push_back(m);
  m.source = ".version 8.0";
  b.ptx.push_back(m);
  Trace merged = merge_traces({a, b});
  ASSERT_EQ(merged.ptx.size(), 1u);
  EXPECT_EQ(merged.ptx[0].source, ".version 8.0");  // the copy with text wins
}

// Windows belong to one process: a rank's GPU must not be clipped by
// another rank's windows, so several merged runs keep none.
TEST(Merge, CaptureWindowsStayOnlyWithOneProcess) {
  Trace a, b;
  a.diagnostics.capture = b.diagnostics.capture = "scope 'step'";
  a.diagnostics.capture_windows = {{10, 20}, {40, 50}};
  b.diagnostics.capture_windows = {{15, 30}};
  EXPECT_EQ(merge_traces({a}).diagnostics.capture_windows, a.diagnostics.capture_windows);
  EXPECT_TRUE(merge_traces({a, b}).diagnostics.capture_windows.empty());
}

TEST(Merge, RangeLanesStayRangeLanes) {
  Trace a = test::load("seed_threads.json"), b = test::load("seed_threads.json");
  b.process.rank = 1;
  for (Trace* t : {&a, &b}) {
    Node range;
    range.name = t->strings.intern("async_load");
    range.thread = kRangeLaneBase;
    t->add_node(range);
  }
  Trace m = merge_traces({a, b});
  std::vector<uint32_t> range_lanes;
  for (const Node& n : m.nodes) {
    if (m.name(n) == "async_load")
      range_lanes.push_back(n.thread);
    else
      EXPECT_FALSE(is_range_lane(n.thread));
  }
  EXPECT_EQ(range_lanes, (std::vector<uint32_t>{kRangeLaneBase, kRangeLaneBase + 1}));
}

TEST(Merge, RenumbersAndKeepsRanksApart) {
  Trace a = test::load("seed_threads.json"), b = test::load("seed_streams.json");
  b.process.rank = 1;
  Trace m = merge_traces({a, b});
  EXPECT_EQ(m.nodes.size(), a.nodes.size() + b.nodes.size());
  EXPECT_EQ(m.edges.size(), a.edges.size() + b.edges.size());
  EXPECT_EQ(m.nodes[a.nodes.size() + 2].parent, a.nodes.size() + 1);
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].name, "rank 1: Test GPU");
  EXPECT_EQ(m.diagnostics.warnings.back(), "merged ranks: 0 (pid 1), 1 (pid 1)");
  // Thread 1 of rank 0 and thread 1 of rank 1 are different lanes now.
  EXPECT_NE(m.nodes[0].thread, m.nodes[a.nodes.size()].thread);
  // Both ranks' paths are in one graph; the longer one sets the length.
  DependencyGraph g = build_dependency_graph(m);
  EXPECT_EQ(compute_critical_path(m, g).length_ns, 702'000 - 0 - 500);
}

// A recorded process: one thread "main" with a scope and a kernel on GPU 0.
Trace process(int64_t pid, int64_t rank, const std::string& host, uint32_t tid, int64_t start_ns) {
  Trace t;
  t.process.pid = pid;
  t.process.rank = rank;
  t.process.host = host;
  t.process.program = "app" + std::to_string(pid);
  t.process.start_ns = start_ns;
  t.process.end_ns = start_ns + 1000;
  t.diagnostics.cupti = "ok";
  t.diagnostics.warnings.push_back("w" + std::to_string(pid));
  t.threads.push_back({tid, "main"});
  Device d;
  d.name = "GPU";
  t.devices.push_back(d);
  Node scope;
  scope.name = t.strings.intern("step");
  scope.thread = tid;
  scope.start_ns = start_ns;
  scope.end_ns = start_ns + 500;
  uint32_t id = t.add_node(scope);
  Node k;
  k.kind = NodeKind::kKernel;
  k.name = t.strings.intern("gemv");
  k.parent = id;
  k.thread = tid;
  t.add_gpu_node(k, GpuDetail{});
  return t;
}

std::vector<std::string> thread_names(const Trace& t) {
  std::vector<std::string> names;
  for (const ThreadInfo& th : t.threads) names.push_back(th.name);
  return names;
}

// A rank that allocated inside its scope and outside every scope.
Trace process_with_memory(int64_t pid, int64_t rank, int64_t start_ns) {
  Trace t = process(pid, rank, "a", 7, start_ns);
  auto add = [&t](int64_t time, uint32_t scope, uint64_t address, std::string_view api) {
    MemoryEvent e;
    e.time_ns = time;
    e.thread = 7;
    e.scope = scope;
    e.address = address;
    e.bytes = 64;
    e.name = t.strings.intern(api);
    t.memory.push_back(e);
  };
  add(start_ns + 10, 0, 0x100 + pid, "cuMemAlloc_v2");
  add(start_ns + 600, kNoNode, 0x200 + pid, "kv_cache");
  t.shapes.push_back({0, "f32", {{2}}, {2}});
  return t;
}

TEST(Merge, MemoryFollowsItsRankAndStaysInTimeOrder) {
  Trace m = merge_traces({process_with_memory(100, 0, 50), process_with_memory(200, 1, 20)});
  ASSERT_EQ(m.memory.size(), 4u);
  std::vector<int64_t> times;
  for (const MemoryEvent& e : m.memory) times.push_back(e.time_ns);
  EXPECT_EQ(times, (std::vector<int64_t>{30, 60, 620, 650}));
  // Rank 1's scoped event names rank 1's scope (node 2), on rank 1's thread.
  const MemoryEvent& r1 = m.memory[0];
  EXPECT_EQ(r1.address, 0x100u + 200);
  EXPECT_EQ(r1.scope, 2u);
  EXPECT_EQ(m.nodes[2].thread, r1.thread);
  EXPECT_EQ(m.strings.view(m.memory[2].name), "kv_cache");
  EXPECT_EQ(m.memory[2].scope, kNoNode);
  ASSERT_EQ(m.shapes.size(), 2u);
  EXPECT_EQ(m.shapes[1].node, 2u);

  // One rank taken back out keeps its events, scoped and not, renumbered.
  Subset one = source_subset(m, 1);
  ASSERT_EQ(one.trace.memory.size(), 2u);
  EXPECT_EQ(one.trace.memory[0].scope, 0u);
  EXPECT_EQ(one.trace.memory[1].scope, kNoNode);
  ASSERT_EQ(one.trace.shapes.size(), 1u);
  EXPECT_EQ(one.trace.shapes[0].node, 0u);
  // A subtree keeps only what was allocated inside it.
  Subset steps = subtrees_named(m, "step");
  EXPECT_EQ(steps.trace.memory.size(), 2u);
}

// Counter samples and tokens follow their rank's thread and scope as memory
// events do, names interned anew, in time order; parts keep their own.
TEST(Merge, CountersFollowTheirRankAndStayInTimeOrder) {
  auto with_counters = [](int64_t pid, int64_t rank, int64_t start_ns) {
    Trace t = process(pid, rank, "a", 7, start_ns);
    CounterSample tokens;
    tokens.time_ns = start_ns + 10;
    tokens.thread = 7;
    tokens.scope = 0;
    tokens.kind = CounterKind::kTokens;
    tokens.name = t.strings.intern(kTokensName);
    tokens.value = static_cast<double>(pid);
    t.counters.push_back(tokens);
    CounterSample hit;
    hit.time_ns = start_ns + 600;
    hit.thread = 7;
    hit.name = t.strings.intern("l2_hit_rate");
    hit.value = 0.5;
    t.counters.push_back(hit);
    return t;
  };
  Trace m = merge_traces({with_counters(100, 0, 50), with_counters(200, 1, 20)});
  ASSERT_EQ(m.counters.size(), 4u);
  std::vector<int64_t> times;
  for (const CounterSample& c : m.counters) times.push_back(c.time_ns);
  EXPECT_EQ(times, (std::vector<int64_t>{30, 60, 620, 650}));
  EXPECT_EQ(m.counters[0].value, 200.0);
  EXPECT_EQ(m.counters[0].scope, 2u);
  EXPECT_EQ(m.nodes[2].thread, m.counters[0].thread);
  EXPECT_EQ(m.strings.view(m.counters[2].name), "l2_hit_rate");
  EXPECT_EQ(m.counters[2].scope, kNoNode);

  Subset one = source_subset(m, 1);
  ASSERT_EQ(one.trace.counters.size(), 2u);
  EXPECT_EQ(one.trace.counters[0].scope, 0u);
  EXPECT_EQ(one.trace.counters[1].scope, kNoNode);
  Subset steps = subtrees_named(m, "step");
  ASSERT_EQ(steps.trace.counters.size(), 2u);
  EXPECT_EQ(steps.trace.counters[0].kind, CounterKind::kTokens);
}

// CPU counters follow their nodes into a merge and a part; an input that
// counted other events is left out, and the merge says so.
TEST(Merge, CpuCountersFollowTheirNodes) {
  auto with_cpu_counters = [](int64_t pid, int64_t rank, int64_t start_ns,
                              std::vector<std::string> events) {
    Trace t = process(pid, rank, "a", 7, start_ns);
    t.diagnostics.cpu_counters = "software: task-clock";
    t.cpu_counters.events = std::move(events);
    t.cpu_counters.nodes.push_back({0, {static_cast<uint64_t>(pid), 1, 0, 0, 0}});
    return t;
  };
  Trace m = merge_traces({with_cpu_counters(100, 0, 50, {"task-clock"}),
                          with_cpu_counters(200, 1, 20, {"task-clock"})});
  EXPECT_EQ(m.cpu_counters.events, std::vector<std::string>{"task-clock"});
  ASSERT_EQ(m.cpu_counters.nodes.size(), 2u);
  EXPECT_EQ(m.cpu_counters.nodes[1].node, 2u);  // the second input's scope
  EXPECT_EQ(m.cpu_counters.nodes[1].values[0], 200u);
  EXPECT_EQ(m.diagnostics.cpu_counters,
            "rank 0: software: task-clock; rank 1: software: task-clock");

  Subset one = source_subset(m, 1);
  ASSERT_EQ(one.trace.cpu_counters.nodes.size(), 1u);
  EXPECT_EQ(one.trace.cpu_counters.nodes[0].node, 0u);
  EXPECT_EQ(one.trace.cpu_counters.nodes[0].values[0], 200u);

  Trace mixed = merge_traces(
      {with_cpu_counters(100, 0, 50, {"task-clock"}), with_cpu_counters(200, 1, 20, {"cycles"})});
  ASSERT_EQ(mixed.cpu_counters.nodes.size(), 1u);
  EXPECT_EQ(mixed.cpu_counters.nodes[0].values[0], 100u);
  const auto& w = mixed.diagnostics.warnings;
  EXPECT_NE(std::find_if(
                w.begin(), w.end(),
                [](const std::string& s) { return s.find("CPU counters") != std::string::npos; }),
            w.end());
}

TEST(Merge, ProcessIsTheFirstSourceAndSourcesKeepEveryProcess) {
  Trace m = merge_traces({process(100, 0, "a", 7, 50), process(200, 1, "a", 7, 20)},
                         {"r0.json", "r1.json"});
  EXPECT_EQ(m.process.pid, 100);  // a real process, not 0
  EXPECT_EQ(m.process.program, "app100");
  EXPECT_EQ(m.process.rank, -1);
  EXPECT_EQ(m.process.start_ns, 20);  // the span of both
  EXPECT_EQ(m.process.end_ns, 1050);
  ASSERT_EQ(m.sources.size(), 2u);
  const SourceInfo& s1 = m.sources[1];
  EXPECT_EQ(s1.label, "rank 1");
  EXPECT_EQ(s1.file, "r1.json");
  EXPECT_EQ(s1.process.pid, 200);
  EXPECT_EQ(s1.process.rank, 1);
  EXPECT_EQ(s1.process.program, "app200");
  EXPECT_EQ(s1.process.start_ns, 20);
  EXPECT_EQ(s1.cupti, "ok");
  // Both had thread 7: now two lanes, and the map gives back the OS tid.
  ASSERT_EQ(s1.threads.size(), 1u);
  EXPECT_EQ(s1.threads[0].source_id, 7u);
  EXPECT_EQ(m.nodes[2].thread, s1.threads[0].id);
  EXPECT_NE(m.nodes[0].thread, m.nodes[2].thread);
  ASSERT_EQ(s1.devices.size(), 1u);
  EXPECT_EQ(s1.devices[0].source_id, 0u);
  EXPECT_EQ(m.gpu[m.nodes[3].detail].device, s1.devices[0].id);
  EXPECT_EQ(m.diagnostics.cupti, "ok");  // all agree
  EXPECT_EQ(m.diagnostics.warnings,
            (std::vector<std::string>{"rank 0: w100", "rank 1: w200",
                                      "merged ranks: 0 (pid 100), 1 (pid 200)"}));
}

TEST(Merge, RepeatedRankStaysDistinguishable) {
  // Two runs of one rank: the second is "rank 0 #2", so its lanes differ by name too.
  Trace m = merge_traces({process(100, 0, "a", 7, 0), process(200, 0, "a", 7, 0)});
  ASSERT_EQ(m.sources.size(), 2u);
  EXPECT_EQ(m.sources[1].label, "rank 0 #2");
  EXPECT_EQ(thread_names(m), (std::vector<std::string>{"rank 0: main", "rank 0 #2: main"}));
  EXPECT_EQ(m.devices[1].name, "rank 0 #2: GPU");
  EXPECT_EQ(m.diagnostics.warnings.back(), "merged ranks: 0 (pid 100), 0 #2 (pid 200)");
}

TEST(Merge, MergingMergedTracesKeepsEverySource) {
  Trace ab = merge_traces({process(100, 0, "a", 7, 0), process(200, 1, "a", 8, 0)}, {"a", "b"});
  Trace c = process(300, 2, "a", 9, 0);
  Trace abc = merge_traces({ab, c}, {"ab", "c"});
  ASSERT_EQ(abc.sources.size(), 3u);
  EXPECT_EQ(abc.sources[0].file, "a");  // the inner sources, not the merged file
  EXPECT_EQ(abc.sources[2].file, "c");
  EXPECT_EQ(abc.sources[1].process.pid, 200);
  EXPECT_EQ(abc.sources[1].threads[0].source_id, 8u);  // the OS tid survives both merges
  EXPECT_EQ(abc.process.pid, 100);
  // Names are not prefixed twice; the old summary warning is replaced.
  EXPECT_EQ(thread_names(abc),
            (std::vector<std::string>{"rank 0: main", "rank 1: main", "rank 2: main"}));
  EXPECT_EQ(abc.diagnostics.warnings,
            (std::vector<std::string>{"rank 0: w100", "rank 1: w200", "rank 2: w300",
                                      "merged ranks: 0 (pid 100), 1 (pid 200), 2 (pid 300)"}));
  // Each source's map points at its own nodes' lanes.
  for (size_t s = 0; s < 3; ++s)
    EXPECT_EQ(abc.nodes[2 * s].thread, abc.sources[s].threads[0].id) << s;

  // The same merged pair twice: the repeats are relabelled, names follow.
  Trace twice = merge_traces({ab, ab});
  ASSERT_EQ(twice.sources.size(), 4u);
  EXPECT_EQ(twice.sources[3].label, "rank 1 #2");
  EXPECT_EQ(thread_names(twice), (std::vector<std::string>{"rank 0: main", "rank 1: main",
                                                           "rank 0 #2: main", "rank 1 #2: main"}));
  EXPECT_EQ(twice.diagnostics.warnings[3], "rank 1 #2: w200");
}

TEST(Merge, SaysWhatDiffersBetweenSources) {
  Trace a = process(100, 0, "host-a", 7, 0), b = process(200, 1, "host-b", 7, 0);
  b.diagnostics.cupti = "unavailable: no libcuda";
  Trace m = merge_traces({a, b});
  EXPECT_EQ(m.diagnostics.cupti, "rank 0: ok; rank 1: unavailable: no libcuda");
  EXPECT_NE(std::find_if(m.diagnostics.warnings.begin(), m.diagnostics.warnings.end(),
                         [](const std::string& w) {
                           return w.rfind("merged traces from 2 hosts (host-a, host-b)", 0) == 0;
                         }),
            m.diagnostics.warnings.end());
  EXPECT_EQ(merge_traces({a, a}).diagnostics.warnings.size(), 3u);  // one host: no such warning
  // Merged again, the warning is written once, not carried and repeated.
  Trace again = merge_traces({m, a});
  EXPECT_EQ(
      std::count_if(again.diagnostics.warnings.begin(), again.diagnostics.warnings.end(),
                    [](const std::string& w) { return w.rfind("merged traces from", 0) == 0; }),
      1);
}

}  // namespace
}  // namespace brickprof
