// GPU metrics added up the scope tree (analysis/analyses/gpu_metrics.h) on
// a hand-made trace: counts summed, rates weighted by their count, a value
// a kernel lacks left out, rows by brick, kernel and layer.
#include "analysis/analyses/gpu_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/analysis/analyses/test_util.h"

namespace brickprof {
namespace {

// layer "Layer 0" > brick "RmsNorm" > kernels k (twice); layer > brick
// "QkvProjection" > kernel q; layer > brick "Idle" (no kernels).
struct Fixture {
  Trace t;
  uint32_t layer, rms, k1, k2, qkv, q, idle;

  uint32_t add(NodeKind kind, const char* name, uint32_t parent) {
    Node n;
    n.kind = kind;
    n.name = t.strings.intern(name);
    n.parent = parent;
    t.nodes.push_back(n);
    return static_cast<uint32_t>(t.nodes.size() - 1);
  }

  Fixture() {
    layer = add(NodeKind::kLayer, "Layer 0", kNoNode);
    rms = add(NodeKind::kBrick, "RmsNorm", layer);
    k1 = add(NodeKind::kKernel, "rms_kernel", rms);
    k2 = add(NodeKind::kKernel, "rms_kernel", rms);
    qkv = add(NodeKind::kBrick, "QkvProjection", layer);
    q = add(NodeKind::kKernel, "qkv_gemv", qkv);
    idle = add(NodeKind::kBrick, "Idle", layer);
    GpuMetrics& g = t.gpu_metrics;
    g.metrics = {"lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "lts__t_sectors.sum"};
    g.weights = {2, kSummed, kSummed};
    g.every = 1;
    g.nodes = {{k1, {50, 1000, 1}}, {k2, {100, 3000, 3}}, {q, {10, 500, 6}}};
    t.diagnostics.gpu_metrics = "kernel replay, 1 passes per kernel";
  }
};

TEST(GpuMetrics, ScopesCombineTheirKernels) {
  Fixture f;
  const std::vector<GpuMetricSum> by = gpu_metrics_by_node(f.t);
  EXPECT_EQ(by[f.rms].kernels(), 2u);
  EXPECT_EQ(by[f.rms].values(), (std::vector<double>{(50 * 1 + 100 * 3) / 4.0, 4000, 4}));
  EXPECT_EQ(by[f.k2].values(), (std::vector<double>{100, 3000, 3}));
  EXPECT_EQ(by[f.layer].kernels(), 3u);
  EXPECT_EQ(by[f.layer].values(),
            (std::vector<double>{(50 * 1 + 100 * 3 + 10 * 6) / 10.0, 4500, 10}));
  EXPECT_EQ(by[f.idle].kernels(), 0u);
  for (double v : by[f.idle].values()) EXPECT_TRUE(std::isnan(v));
}

// A value a kernel lacks (null in the trace) is left out of its scope's,
// and so is a rate whose weight it lacks; the counts still add up.
TEST(GpuMetrics, MissingValuesAreLeftOut) {
  Fixture f;
  f.t.gpu_metrics.nodes[1].values = {std::nan(""), 3000, 3};
  f.t.gpu_metrics.nodes[0].values = {50, 1000, std::nan("")};
  const std::vector<GpuMetricSum> by = gpu_metrics_by_node(f.t);
  const std::vector<double> rms = by[f.rms].values();
  EXPECT_TRUE(std::isnan(rms[0]));  // k1's weight is missing, k2's rate
  EXPECT_EQ(rms[1], 4000);
  EXPECT_EQ(rms[2], 3);
}

// Rows: bricks, then kernels (each name once: both rms_kernel launches),
// then the layer; a brick without profiled kernels has no row.
TEST(GpuMetrics, ReportRowsByKindAndName) {
  Fixture f;
  const GpuMetricReport r = analyze_gpu_metrics(f.t);
  ASSERT_EQ(r.rows.size(), 5u);
  EXPECT_EQ(r.rows[0].name, "RmsNorm");
  EXPECT_EQ(r.rows[1].name, "QkvProjection");
  EXPECT_EQ(r.rows[2].name, "rms_kernel");
  EXPECT_EQ(r.rows[2].nodes, 2u);
  EXPECT_EQ(r.rows[2].kernels, 2u);
  EXPECT_EQ(r.rows[2].values, (std::vector<double>{87.5, 4000, 4}));
  EXPECT_EQ(r.rows[3].name, "qkv_gemv");
  EXPECT_EQ(r.rows[4].kind, NodeKind::kLayer);
  EXPECT_EQ(r.rows[4].kernels, 3u);
  const std::string text = test::render("gpu-metrics", f.t);
  EXPECT_NE(text.find("L2 hit"), std::string::npos) << text;
  EXPECT_NE(text.find("87.5%"), std::string::npos) << text;
}

TEST(GpuMetrics, OffSaysHowToTurnThemOn) {
  Fixture f;
  f.t.gpu_metrics = GpuMetrics();
  f.t.diagnostics.gpu_metrics = "off";
  EXPECT_NE(test::render("gpu-metrics", f.t).find("--gpu-metrics"), std::string::npos);
}

}  // namespace
}  // namespace brickprof
