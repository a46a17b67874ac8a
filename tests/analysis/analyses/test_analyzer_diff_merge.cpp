// Trace analyzer, diff (regressions, changed code) and multi-rank merge.
#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

#include "analysis/critical_path.h"
#include "analysis/trace_analyzer.h"
#include "analysis/trace_diff.h"
#include "analysis/trace_merge.h"
#include "test_util.h"

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

TEST(Analyzer, CommunicationNames) {
  EXPECT_TRUE(is_communication("ncclKernel_AllGather_RING"));
  EXPECT_TRUE(is_communication("reduce_scatter"));
  EXPECT_TRUE(is_communication("all-reduce"));
  EXPECT_FALSE(is_communication("gemv_q4k"));
}

// Limits with the given threshold; the minimum time is the default unless given.
DiffLimits limits(double pct, int64_t min_time_ns = DiffLimits{}.min_time_ns) {
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
  EXPECT_EQ(diff_traces(base, next, limits(25)).regressions, 0u);
  EXPECT_EQ(diff_traces(base, base, limits(0)).regressions, 0u);
  std::ostringstream out;
  render_diff(d, out, false);
  EXPECT_NE(out.str().find("same name, different code"), std::string::npos);
}

// A trace of kernels given as (name, PTX hash, duration).
Trace kernels(std::initializer_list<std::tuple<const char*, uint64_t, int64_t>> list) {
  Trace t;
  for (const auto& [name, hash, ns] : list) {
    Node n;
    n.kind = NodeKind::kKernel;
    n.name = t.strings.intern(name);
    n.end_ns = ns;
    GpuDetail d;
    d.ptx_hash = hash;
    t.add_gpu_node(n, d);
  }
  return t;
}

const DiffEntry* entry(const TraceDiff& d, std::string_view name, uint64_t hash) {
  for (const DiffEntry& e : d.entries)
    if (e.name == name && e.ptx_hash == hash) return &e;
  return nullptr;
}

TEST(Diff, KernelsMatchByNameAndHash) {
  // gemv 0xa is in both (compared as such); 0xb is a new, extra version.
  Trace base = kernels({{"gemv", 0xa, 100}});
  Trace next = kernels({{"gemv", 0xa, 100}, {"gemv", 0xb, 500}});
  TraceDiff d = diff_traces(base, next, limits(5));
  ASSERT_EQ(d.entries.size(), 2u);
  EXPECT_EQ(d.regressions, 0u);  // the matched version did not change
  EXPECT_EQ(d.code_changes, 0u);
  ASSERT_NE(entry(d, "gemv", 0xb), nullptr);
  EXPECT_EQ(entry(d, "gemv", 0xb)->base_count, 0u);
  EXPECT_EQ(entry(d, "gemv", 0xa)->new_avg_ns, 100);
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

TEST(Diff, MinimumTimeIsTheChangeOverAllCalls) {
  // One call 1 µs -> 2 µs (+100%): 1 µs more in all, not more than the 1 µs floor.
  TraceDiff one =
      diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2000}}), limits(5));
  ASSERT_EQ(one.entries.size(), 1u);
  EXPECT_EQ(one.entries[0].change_ns(), 1000);
  EXPECT_FALSE(one.entries[0].regression);
  EXPECT_TRUE(one.entries[0].below_floor);
  EXPECT_EQ(one.regressions, 0u);
  EXPECT_EQ(one.below_floor, 1u);
  // One nanosecond more is beyond it.
  TraceDiff over =
      diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2001}}), limits(5));
  EXPECT_TRUE(over.entries[0].regression);
  EXPECT_FALSE(over.entries[0].below_floor);
  // +200 ns per call is noise once, but not over ten calls (2 µs in all).
  TraceDiff ten = diff_traces(kernels({{"k", 0, 1000}}),
                              kernels({{"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200},
                                       {"k", 0, 1200}}),
                              limits(5));
  EXPECT_EQ(ten.entries[0].change_ns(), 2000);
  EXPECT_TRUE(ten.entries[0].regression);
  // Faster by a small amount: hidden too, never a regression.
  TraceDiff faster =
      diff_traces(kernels({{"tiny", 0, 2000}}), kernels({{"tiny", 0, 1000}}), limits(5));
  EXPECT_FALSE(faster.entries[0].regression);
  EXPECT_EQ(faster.below_floor, 1u);
  // A zero floor is the percentage alone.
  EXPECT_EQ(diff_traces(kernels({{"tiny", 0, 1000}}), kernels({{"tiny", 0, 2000}}), limits(5, 0))
                .regressions,
            1u);
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
    if (m.name(n) == "async_load") range_lanes.push_back(n.thread);
    else EXPECT_FALSE(is_range_lane(n.thread));
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

}  // namespace
}  // namespace brickprof
