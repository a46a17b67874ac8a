// Roofline bounds and transfer findings (ping-pong, re-upload, pageable) on
// hand-checked traces.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/roofline.h"
#include "analysis/analyses/trace_scope.h"
#include "analysis/analyses/transfers.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

const RooflineEntry* entry(const Roofline& r, std::string_view name) {
  for (const RooflineEntry& e : r.entries)
    if (e.name == name) return &e;
  return nullptr;
}

TEST(Roofline, BoundsAndInheritedWork) {
  Trace t = test::load("roofline.json");
  Roofline r = compute_roofline(t, {});
  const RooflineEntry* gate = entry(r, "GateProjection");
  ASSERT_NE(gate, nullptr);
  EXPECT_TRUE(gate->gpu);
  EXPECT_EQ(gate->time_ns, 60'000'000);  // GPU time of its three kernels
  EXPECT_DOUBLE_EQ(gate->intensity(), 2.0);
  EXPECT_TRUE(gate->memory_bound());  // ridge is 1000/100 = 10 FLOP/B
  EXPECT_DOUBLE_EQ(gate->roof_gflops(), 200.0);
  EXPECT_NEAR(gate->efficiency(), (2e9 / 60e6) / 200.0, 1e-12);
  const RooflineEntry* gemv = entry(r, "gate_gemv");
  ASSERT_NE(gemv, nullptr);
  EXPECT_EQ(gemv->work_source, "brick share");
  EXPECT_DOUBLE_EQ(gemv->flops, 1e9);  // 30 of the brick's 60 ms
  const RooflineEntry* gemm = entry(r, "big_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->work_source, "kernel");
  EXPECT_FALSE(gemm->memory_bound());
  EXPECT_DOUBLE_EQ(gemm->efficiency(), 0.5);  // 500 of 1000 GFLOP/s
  const RooflineEntry* norm = entry(r, "RmsNorm");
  ASSERT_NE(norm, nullptr);
  EXPECT_FALSE(norm->gpu);
  EXPECT_TRUE(norm->peaks.is_default());  // nothing measured: the AVX2 row
  EXPECT_DOUBLE_EQ(norm->roof_gflops(), 12.5);
  EXPECT_DOUBLE_EQ(norm->efficiency(), 0.8);
}

TEST(Roofline, OverridesReplaceDefaults) {
  Trace t = test::load("roofline.json");
  Roofline r = compute_roofline(t, PeakOverrides{100, 10, 0});
  const RooflineEntry* norm = entry(r, "RmsNorm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->peaks.source, "override");
  std::ostringstream out;
  out << test::render("roofline", t, {}, false);
  EXPECT_NE(out.str().find("CPU peak (AVX2, built-in default, not measured): "), std::string::npos)
      << out.str();
}

TEST(Roofline, AboveTheRoofIsSaidAndFlagged) {
  // 1 GB in 50 ms is 20 GB/s against a 10 GB/s roof: cache-resident data.
  Trace t;
  Node brick;
  brick.kind = NodeKind::kBrick;
  brick.name = t.strings.intern("ResidualAdd");
  brick.end_ns = 50'000'000;
  brick.flops = 1e8;
  brick.bytes_moved = 1e9;
  t.add_node(brick);
  Roofline r = compute_roofline(t, PeakOverrides{100, 10, 0});
  ASSERT_EQ(r.entries.size(), 1u);
  EXPECT_DOUBLE_EQ(r.entries[0].efficiency(), 2.0);
  std::ostringstream text, json;
  text << test::render("roofline", t, test::with_peaks(PeakOverrides{100, 10, 0}), false);
  json << test::render("roofline", t, test::with_peaks(PeakOverrides{100, 10, 0}), true);
  EXPECT_NE(text.str().find("1 above 100% of the roof (ResidualAdd at 200.0%)"), std::string::npos)
      << text.str();
  EXPECT_NE(json.str().find("\"above_roof\":true"), std::string::npos) << json.str();
  std::ostringstream within;
  within << test::render("roofline", t, test::with_peaks(PeakOverrides{100, 40, 0}), false);
  EXPECT_EQ(within.str().find("above 100%"), std::string::npos) << within.str();
}

TEST(Transfers, PingPongRepeatedUploadsPageable) {
  Trace t = test::load("transfers.json");
  TransferReport r = analyze_transfers(t, {});
  ASSERT_EQ(r.ping_pongs.size(), 1u);
  EXPECT_EQ(r.ping_pongs[0].nodes, (std::vector<uint32_t>{2, 3, 5}));
  const ScopeNamer scope(t);
  EXPECT_EQ(scope(r.ping_pongs[0].nodes.back()), "Layer 0 / LmHead");
  ASSERT_EQ(r.repeated.size(), 1u);
  EXPECT_EQ(r.repeated[0].uploads, 2u);
  EXPECT_EQ(r.repeated[0].wasted_bytes(), 1u << 20);
  EXPECT_EQ(scope(r.repeated[0].second_node), "Layer 0 / LmHead");
  EXPECT_EQ(r.pageable_count, 1u);
  EXPECT_EQ(scope(r.pageable[0].node), "Layer 0 / LmHead");
  ASSERT_EQ(r.slow.size(), 3u);  // the pageable D2H (34%), the two 1 MiB uploads (42%)
  EXPECT_EQ(r.slow[0].node, 8u);
  EXPECT_TRUE(r.link.is_default());
  ASSERT_EQ(r.totals.size(), 2u);
  EXPECT_EQ(r.totals[0].direction, Direction::kH2D);
  EXPECT_EQ(r.totals[0].count, 4u);
}

TEST(Transfers, ViewsRenderTextAndJson) {
  Trace t = test::load("transfers.json");
  std::ostringstream text, json;
  text << test::render("transfers", t, {}, false);
  json << test::render("transfers", t, {}, true);
  EXPECT_NE(text.str().find("H2D -> D2H -> H2D of 4.0MiB"), std::string::npos);
  EXPECT_NE(json.str().find("\"ping_pongs\":[\n{\"nodes\":[2,3,5]"), std::string::npos);
}

TEST(Transfers, LinkOverrideReachesTheView) {
  Trace t = test::load("transfers.json");
  std::ostringstream text, json;
  text << test::render("transfers", t, test::with_peaks(PeakOverrides{0, 0, 100}), false);
  json << test::render("transfers", t, test::with_peaks(PeakOverrides{0, 0, 100}), true);
  EXPECT_EQ(text.str().rfind("Transfers (link 100.00GB/s, override)\n", 0), 0u) << text.str();
  EXPECT_NE(json.str().find("\"link\":{\"gbps\":100,\"source\":\"override\"}"), std::string::npos)
      << json.str();
}

// `n` copies of `bytes` each, in direction `dir`, [i µs, i µs + duration].
Trace copies(int n, Direction dir, uint64_t bytes, int64_t duration_ns, MemoryKind host) {
  Trace t;
  const uint32_t s = test::add_node(t, {.name = "load", .thread = 1, .end_ns = 1'000'000});
  for (int i = 0; i < n; ++i) {
    GpuDetail d;
    d.direction = dir;
    d.bytes = bytes;
    d.src_kind = dir == Direction::kH2D ? host : MemoryKind::kDevice;
    d.dst_kind = dir == Direction::kH2D ? MemoryKind::kDevice : host;
    d.src_addr = 0x1000 + static_cast<uint64_t>(i) * bytes;
    d.dst_addr = 0x9000'0000 + static_cast<uint64_t>(i) * bytes;
    const int64_t at = (i + 1) * 1'000;
    test::add_gpu_node(t,
                       {.kind = NodeKind::kTransfer,
                        .name = "cuMemcpy",
                        .parent = s,
                        .thread = 1,
                        .start_ns = at,
                        .end_ns = at + duration_ns},
                       d);
  }
  return t;
}

// A copy whose start and end are one timestamp has no rate: it is neither
// "slow" nor fast, and the totals' rate is over the copies that took time.
TEST(Transfers, AZeroLengthCopyHasNoRate) {
  Trace t = copies(1, Direction::kH2D, 8 << 20, 0, MemoryKind::kPinned);
  TransferReport r = analyze_transfers(t, {});
  EXPECT_TRUE(r.slow.empty());
  ASSERT_EQ(r.totals.size(), 1u);
  const std::string text = test::render("transfers", t);
  EXPECT_EQ(text.find("0B/s"), std::string::npos) << text;
  EXPECT_NE(text.find("H2D: 1 copy, 8.0MiB in 0ns (no rate: zero-length copies only)"),
            std::string::npos)
      << text;
  const std::string json = test::render("transfers", t, {}, true);
  EXPECT_NE(json.find("\"gbps\":null"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"gbps\":0,"), std::string::npos) << json;
}

// The text shows ten of a list; the JSON lists every entry
// (analysis/README.md).
TEST(Transfers, JsonListsEverySlowAndPageableCopy) {
  Trace t = copies(12, Direction::kH2D, 1 << 20, 1'000'000, MemoryKind::kPageable);  // 1 GB/s
  TransferReport r = analyze_transfers(t, {});
  EXPECT_EQ(r.slow.size(), 12u);
  EXPECT_EQ(r.pageable.size(), 12u);
  const std::string json = test::render("transfers", t, {}, true);
  size_t nodes = 0;
  for (size_t at = json.find("{\"node\":"); at != std::string::npos;
       at = json.find("{\"node\":", at + 1))
    ++nodes;
  EXPECT_EQ(nodes, 24u) << json;
  const std::string text = test::render("transfers", t);
  EXPECT_NE(text.find("  ... 2 more (--json lists all)"), std::string::npos) << text;
}

}  // namespace
}  // namespace brickprof
