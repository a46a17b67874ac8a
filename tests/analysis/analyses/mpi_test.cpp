// The cross-rank part: MPI calls in the trace model and its JSON, merge's
// clock alignment and rank checks, collectives matched across ranks, the
// per-rank breakdown, imbalance, the critical path across ranks and the
// Chrome export's distributedInfo, on two hand-made ranks whose figures
// are worked out below.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/collectives.h"
#include "analysis/analyses/imbalance.h"
#include "analysis/analyses/rank_breakdown.h"
#include "analysis/analyses/rank_path.h"
#include "analysis/analyses/trace_merge.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"
#include "trace/formats/chrome.h"
#include "trace/json/trace_json.h"
#include "trace/model/bricks.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

// One rank of a two-rank job: Layer 0 [0, 1000] holds RmsNorm [0, c]
// (compute), then an AllReduce brick [c, 1000] around MPI_Allreduce
// [c + 10, 990], the first collective on MPI_COMM_WORLD.
Trace rank_trace(int rank, int64_t compute_ns) {
  Trace t;
  t.process.pid = 100 + rank;
  t.process.program = "app";
  t.process.host = "box";
  t.process.rank = rank;
  t.process.world_size = 2;
  t.process.launcher = "open-mpi";
  t.process.job = "7";
  t.process.start_ns = 0;
  t.process.end_ns = 1000;
  t.process.clock_sync.reference_rank = 0;
  const uint32_t tid = 200 + static_cast<uint32_t>(rank);
  t.threads.push_back({tid, "main"});
  auto add = [&](NodeKind kind, std::string_view name, uint32_t parent, int64_t start, int64_t end,
                 Category category) {
    const uint32_t id = test::add_node(
        t, {.kind = kind,
            .category = category,
            .brick_id = static_cast<int16_t>(kind == NodeKind::kBrick ? brick_from_name(name) : -1),
            .layer_index = kind == NodeKind::kLayer ? 0 : -1,
            .name = name,
            .parent = parent,
            .thread = tid,
            .start_ns = start,
            .end_ns = end});
    if (parent != kNoNode) t.add_edge(parent, id, EdgeType::kContains);
    return id;
  };
  const uint32_t layer = add(NodeKind::kLayer, "Layer 0", kNoNode, 0, 1000, Category::kNone);
  add(NodeKind::kBrick, "RmsNorm", layer, 0, compute_ns, Category::kNorm);
  const uint32_t brick =
      add(NodeKind::kBrick, "AllReduce", layer, compute_ns, 1000, Category::kCommunication);
  const uint32_t call =
      add(NodeKind::kScope, "MPI_Allreduce", brick, compute_ns + 10, 990, Category::kCommunication);
  t.communicators.push_back({0, "MPI_COMM_WORLD", 0xabcull, 2, rank, 0});
  t.comm_calls.push_back({call, CommOp::kAllreduce, 0, -1, -1, 4096, 0, 1});
  return t;
}

// Rank 0 computes 200 ns and arrives at 210; rank 1 computes 600 and
// arrives at 610: skew 400, rank 1 the straggler, rank 0 waits 400.
Trace two_ranks() { return merge_traces({rank_trace(0, 200), rank_trace(1, 600)}); }

TEST(MpiTrace, CommunicationNamesAndNcclKernels) {
  EXPECT_EQ(custom_brick_category("AllReduce"), Category::kCommunication);
  EXPECT_EQ(custom_brick_category("all_gather"), Category::kCommunication);
  EXPECT_EQ(custom_brick_category("MPI_Bcast"), Category::kCommunication);
  EXPECT_EQ(custom_brick_category("KvCacheWrite"), Category::kOther);
  EXPECT_TRUE(is_communication_kernel("ncclKernel_AllReduce_RING_LL_Sum_float"));
  EXPECT_TRUE(is_communication_kernel("ncclDevKernel_AllGather_RING_LL"));
  EXPECT_FALSE(is_communication_kernel("nccl_helper"));
  EXPECT_EQ(to_string(Category::kCommunication), "Communication");
}

TEST(MpiTrace, JsonRoundTripKeepsCallsCommunicatorsAndClock) {
  Trace t = rank_trace(1, 600);
  t.process.local_rank = 1;
  t.process.clock_sync.samples = {{1000, 5000, 300}, {900000, 5900, 250}};
  std::ostringstream out;
  write_format("json", t, out);
  const Trace back = parse_trace_json(out.str());
  ASSERT_EQ(back.comm_calls.size(), 1u);
  const CommCall& c = back.comm_calls[0];
  EXPECT_EQ(c.node, 3u);
  EXPECT_EQ(c.op, CommOp::kAllreduce);
  EXPECT_EQ(c.bytes, 4096u);
  EXPECT_EQ(c.seq, 1u);
  ASSERT_EQ(back.communicators.size(), 1u);
  EXPECT_EQ(back.communicators[0].key, 0xabcull);
  EXPECT_EQ(back.communicators[0].rank, 1);
  EXPECT_EQ(back.process.world_size, 2);
  EXPECT_EQ(back.process.local_rank, 1);
  EXPECT_EQ(back.process.launcher, "open-mpi");
  EXPECT_EQ(back.process.job, "7");
  EXPECT_EQ(back.process.clock_sync, t.process.clock_sync);
  EXPECT_EQ(back.nodes[3].category, Category::kCommunication);  // a scope keeps its category
}

TEST(MpiTrace, ACallNamingAnUnknownCommunicatorIsBadInput) {
  Trace t = rank_trace(0, 200);
  t.comm_calls[0].comm = 5;
  std::ostringstream out;
  write_format("json", t, out);
  try {
    parse_trace_json(out.str());
    FAIL() << "accepted";
  } catch (const TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown communicator 5"), std::string::npos) << e.what();
  }
}

TEST(MpiTrace, MergeMovesARankOntoRankZerosClock) {
  // Rank 1's clock is 5000 ns ahead at local 1000 and 6000 ahead at
  // 1001000: offset 5000 + (t - 1000) / 1000.
  Trace r1 = rank_trace(1, 600);
  for (Node& n : r1.nodes) {
    n.start_ns += 1000000;
    n.end_ns += 1000000;
  }
  r1.process.clock_sync.samples = {{1000, 5000, 200}, {1001000, 6000, 200}};
  const Trace merged = merge_traces({rank_trace(0, 200), r1});
  const Node& layer = merged.nodes[4];        // rank 1's Layer 0, local [1000000, 1001000]
  EXPECT_EQ(layer.start_ns, 1000000 - 5999);  // 5000 + 999 (999000 ns later)
  EXPECT_EQ(layer.end_ns, 1001000 - 6000);
  ASSERT_EQ(merged.sources.size(), 2u);
  EXPECT_TRUE(merged.sources[1].alignment.applied);
  EXPECT_FALSE(merged.sources[0].alignment.applied);  // rank 0 is the reference
  EXPECT_NEAR(merged.sources[1].alignment.drift, 0.001, 1e-12);
  // Sources keep their own clock's record; the merged span is aligned.
  EXPECT_EQ(merged.sources[1].process.clock_sync, r1.process.clock_sync);
  EXPECT_FALSE(merged.process.clock_sync.measured());
  // Ranks measured against rank 0 are one timeline, whatever their hosts.
  for (const std::string& w : merged.diagnostics.warnings)
    EXPECT_EQ(w.find("not on one timeline"), std::string::npos) << w;
}

TEST(MpiTrace, OneRankAlignedAloneHasTheTimesMergeGivesIt) {
  // What a rank's Parquet shard holds: its times as the merged trace has them.
  Trace r1 = rank_trace(1, 600);
  for (Node& n : r1.nodes) {
    n.start_ns += 1000000;
    n.end_ns += 1000000;
  }
  r1.process.clock_sync.samples = {{1000, 5000, 200}, {1001000, 6000, 200}};
  MemoryEvent alloc;
  alloc.time_ns = 1000500;
  alloc.thread = r1.nodes[0].thread;
  alloc.bytes = 4096;
  r1.memory.push_back(alloc);
  const Trace merged = merge_traces({rank_trace(0, 200), r1});
  Trace alone = r1;
  ASSERT_TRUE(align_to_reference_clock(alone));
  const uint32_t base = static_cast<uint32_t>(rank_trace(0, 200).nodes.size());
  for (uint32_t i = 0; i < alone.nodes.size(); ++i) {
    EXPECT_EQ(alone.nodes[i].start_ns, merged.nodes[base + i].start_ns) << i;
    EXPECT_EQ(alone.nodes[i].end_ns, merged.nodes[base + i].end_ns) << i;
  }
  ASSERT_EQ(merged.memory.size(), 1u);
  EXPECT_EQ(alone.memory[0].time_ns, merged.memory[0].time_ns);
  EXPECT_NE(alone.memory[0].time_ns, alloc.time_ns);
  Trace reference = rank_trace(0, 200);  // no samples: nothing to move
  EXPECT_FALSE(align_to_reference_clock(reference));
  EXPECT_EQ(reference.nodes[0].start_ns, 0);
}

TEST(MpiTrace, NoDriftWhereTheOffsetsAgreeWithinTheirErrors) {
  // 1000 ns apart, but each known to 1500 and 2000 ns (half its round
  // trip): no drift is measured; the better sample's offset holds.
  ClockSync sync{0, {{1000, 5000, 3000}, {1001000, 6000, 4000}}};
  EXPECT_DOUBLE_EQ(sync.offset_at(0), 5000);
  EXPECT_DOUBLE_EQ(sync.offset_at(2000000), 5000);
  sync.samples[1].rtt_ns = 1000;  // now the second is the better one
  EXPECT_DOUBLE_EQ(sync.offset_at(0), 6000);
  sync.samples[0].rtt_ns = sync.samples[1].rtt_ns = 200;  // 1000 apart is drift now
  EXPECT_DOUBLE_EQ(sync.offset_at(501000), 5500);
}

TEST(MpiTrace, MergeNeedsEachRankOfOneJobOnce) {
  const Trace r0 = rank_trace(0, 200), r1 = rank_trace(1, 600);
  const std::vector<std::string> files = {"a.json", "b.json"};
  EXPECT_EQ(check_job_ranks({r0, r1}, files, false), "");
  EXPECT_EQ(check_job_ranks({r0}, {"a.json"}, false),
            "merge: rank 1 of 2 is missing (1 given; --partial merges a subset of the ranks)");
  EXPECT_EQ(check_job_ranks({r0}, {"a.json"}, true), "");
  EXPECT_EQ(check_job_ranks({r0, r0}, files, false), "b.json: rank 0 again (also in a.json)");
  Trace other = r1;
  other.process.world_size = 4;
  EXPECT_EQ(check_job_ranks({r0, other}, files, false),
            "b.json: rank 1 of a world of 4, but a.json is of 2: not the same job");
  other = r1;
  other.process.job = "8";
  EXPECT_EQ(check_job_ranks({r0, other}, files, false),
            "b.json: from job 8, but a.json is from job 7: not the same job");
  Trace plain;
  plain.process.rank = -1;
  EXPECT_NE(check_job_ranks({r0, plain}, files, false).find("b.json: not a rank of a job"),
            std::string::npos);
  // Traces from no launcher are laid side by side, as before.
  EXPECT_EQ(check_job_ranks({plain, plain}, files, false), "");
}

TEST(MpiCollectives, SkewStragglerAndWaits) {
  const Trace t = two_ranks();
  const CollectiveReport r = analyze_collectives(t);
  ASSERT_EQ(r.instances.size(), 1u);
  const CollectiveInstance& inst = r.instances[0];
  EXPECT_EQ(inst.op, CommOp::kAllreduce);
  EXPECT_EQ(inst.call_count, 2u);
  EXPECT_TRUE(inst.complete());
  EXPECT_EQ(inst.skew_ns(), 400);
  EXPECT_EQ(r.ranks.label(inst.straggler), "rank 1");
  EXPECT_EQ(inst.wait_ns, 400);
  EXPECT_EQ(r.per_rank[0].wait_ns, 400);
  EXPECT_EQ(r.per_rank[1].wait_ns, 0);
  EXPECT_EQ(r.per_rank[1].last_arrivals, 1u);
  EXPECT_EQ(r.incomplete, 0u);
}

TEST(MpiCollectives, RootedAndPrefixPatterns) {
  // The same shape with a broadcast from rank 1 (the late one): rank 0
  // waits for the root. As a reduce to rank 0: the root waits for rank 1.
  for (CommOp op : {CommOp::kBcast, CommOp::kReduce, CommOp::kScan}) {
    Trace r0 = rank_trace(0, 200), r1 = rank_trace(1, 600);
    for (Trace* t : {&r0, &r1}) {
      t->comm_calls[0].op = op;
      t->comm_calls[0].peer = op == CommOp::kBcast ? 1 : 0;
    }
    const CollectiveReport r = analyze_collectives(merge_traces({r0, r1}));
    ASSERT_EQ(r.instances.size(), 1u) << to_string(op);
    EXPECT_EQ(r.per_rank[0].wait_ns, op == CommOp::kScan ? 0 : 400) << to_string(op);
    EXPECT_EQ(r.per_rank[1].wait_ns, 0) << to_string(op);
  }
}

TEST(MpiRanks, BreakdownPartitionsTheSpan) {
  const Trace t = two_ranks();
  const RankWork work = classify_rank_work(t);
  const RankBreakdownReport r = rank_breakdown(t, work, analyze_collectives(t));
  ASSERT_EQ(r.rows.size(), 2u);
  const RankBreakdown& a = r.rows[0];
  EXPECT_FALSE(a.gpu);
  EXPECT_EQ(a.span_ns(), 1000);
  EXPECT_EQ(a.compute_ns, 200);
  EXPECT_EQ(a.waiting_ns, 400);  // [210, 610]
  EXPECT_EQ(a.communication_ns, 400);
  EXPECT_EQ(a.idle_ns, 0);
  const RankBreakdown& b = r.rows[1];
  EXPECT_EQ(b.compute_ns, 600);
  EXPECT_EQ(b.waiting_ns, 0);
  EXPECT_EQ(b.communication_ns, 400);
  for (const RankBreakdown& x : r.rows)
    EXPECT_EQ(x.compute_ns + x.waiting_ns + x.communication_ns + x.memory_ns + x.idle_ns,
              x.span_ns());
}

TEST(MpiRanks, ImbalanceNamesTheStraggler) {
  const Trace t = two_ranks();
  const ImbalanceReport r = analyze_imbalance(t, classify_rank_work(t));
  ASSERT_EQ(r.layers.size(), 1u);
  const ImbalanceRow& layer = r.layers[0];
  EXPECT_EQ(layer.compute_ns, (std::vector<int64_t>{200, 600}));
  EXPECT_EQ(r.ranks.label(layer.straggler), "rank 1");
  EXPECT_DOUBLE_EQ(layer.ratio(), 1.5);
  EXPECT_DOUBLE_EQ(layer.excess_per_instance_ns, 400);
  ASSERT_EQ(r.bricks.size(), 1u);  // AllReduce is communication, not load
  EXPECT_EQ(t.strings.view(r.bricks[0].brick), "RmsNorm");
}

TEST(MpiRanks, CriticalPathAndWhatIf) {
  const Trace t = two_ranks();
  const RankPathReport r = rank_critical_path(t, analyze_collectives(t));
  EXPECT_EQ(r.measured_end_ns, 1000);
  EXPECT_EQ(r.modelled_end_ns, 1000);
  EXPECT_EQ(r.shares[0].work_ns, 220);  // 210 before the call, 10 after
  EXPECT_EQ(r.shares[1].work_ns, 620);
  // Back from rank 0's end: its tail, the all-reduce after rank 1 arrived,
  // then rank 1's work up to its arrival.
  ASSERT_EQ(r.path.size(), 3u);
  EXPECT_EQ(r.ranks.label(r.path[0].rank), "rank 1");
  EXPECT_EQ(r.path[0].end_ns, 610);
  EXPECT_TRUE(r.path[1].transfer);
  EXPECT_EQ(r.path[1].start_ns, 610);
  EXPECT_EQ(r.shares[1].on_path_ns, 610);
  EXPECT_EQ(r.shares[0].on_path_ns, 390);
  // Rank 1 at the median's 220 ns of own work: it arrives at 216, the
  // call ends 380 later, and rank 0's tail ends the run at 606.
  ASSERT_EQ(r.what_ifs.size(), 1u);
  EXPECT_EQ(r.ranks.label(r.what_ifs[0].rank), "rank 1");
  EXPECT_EQ(r.what_ifs[0].saving_ns, 394);
}

TEST(MpiRanks, CriticalPathFromSpansIsThePathFromTheTrace) {
  // A job's dataset hands the path each rank's span and the collectives.
  const Trace t = two_ranks();
  const CollectiveReport collectives = analyze_collectives(t);
  const std::vector<RankSpan> spans = rank_spans(t, collectives.ranks);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].start_ns, 0);
  EXPECT_EQ(spans[1].end_ns, 1000);
  const RankPathReport a = rank_critical_path(t, collectives);
  const RankPathReport b = rank_critical_path(spans, collectives);
  EXPECT_EQ(a.modelled_end_ns, b.modelled_end_ns);
  ASSERT_EQ(a.path.size(), b.path.size());
  for (size_t i = 0; i < a.path.size(); ++i) {
    EXPECT_EQ(a.path[i].start_ns, b.path[i].start_ns);
    EXPECT_EQ(a.path[i].end_ns, b.path[i].end_ns);
  }
  ASSERT_EQ(b.what_ifs.size(), 1u);
  EXPECT_EQ(b.what_ifs[0].saving_ns, 394);
}

TEST(MpiRanks, ViewsRenderTextAndJson) {
  const Trace t = two_ranks();
  for (const char* view : {"ranks", "collectives", "imbalance", "rank-path"}) {
    const std::string text = test::render(view, t);
    EXPECT_NE(text.find("rank 1"), std::string::npos) << view << ":\n" << text;
    const std::string json = test::render(view, t, {}, true);
    EXPECT_EQ(json.front(), '{') << view;
  }
  EXPECT_NE(test::render("collectives", t).find("skew total"), std::string::npos);
  // A trace without MPI says so instead of a table.
  Trace no_mpi;
  test::add_node(no_mpi, {.kind = NodeKind::kScope, .name = "work", .end_ns = 10});
  EXPECT_EQ(test::render("collectives", no_mpi),
            "Collectives: no MPI collective calls in the trace\n");
}

TEST(MpiChrome, ARankCarriesDistributedInfoAndItsCpuWork) {
  std::ostringstream out;
  write_format("chrome", rank_trace(1, 600), out);
  const std::string json = out.str();
  // First, and spaced as Kineto writes it: HTA finds the rank by `"rank": N`.
  EXPECT_EQ(
      json.rfind("{\"distributedInfo\":{\"backend\": \"mpi\", \"rank\": 1, \"world_size\": 2}", 0),
      0u)
      << json.substr(0, 120);
  EXPECT_NE(json.find("\"CPU work (rank 1)\""), std::string::npos);
  // RmsNorm is the compute: one kernel event on the work track.
  EXPECT_NE(json.find("{\"ph\":\"X\",\"name\":\"RmsNorm\",\"cat\":\"kernel\""), std::string::npos);
  EXPECT_EQ(json.find("\"name\":\"MPI_Allreduce\",\"cat\":\"kernel\""), std::string::npos);
  std::ostringstream merged;
  write_format("chrome", two_ranks(), merged);
  EXPECT_EQ(merged.str().find("distributedInfo"), std::string::npos);
}

}  // namespace
}  // namespace brickprof
