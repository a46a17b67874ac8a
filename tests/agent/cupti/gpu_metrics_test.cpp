// GPU metrics (BRICKPROF_GPU_METRICS) end to end on the fake driver and the
// fake CUPTI's range profiler: fake_gpu_app runs with and without the agent
// (same output, same exit code), and the trace must carry each profiled
// kernel's values exactly as the fake computed them (fake_range_profiler.h:
// the fake's own model of a launch, not a GPU's), each brick's figure the
// exact combination of its kernels', one scope occurrence in N profiled,
// and each refusal said in one line while the rest of the trace is whole.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyses/gpu_metrics.h"
#include "tests/fakes/cuda_driver/fake_cuda.h"
#include "tests/fakes/cuda_driver/fake_gpu_app.h"
#include "tests/fakes/cuda_driver/fake_range_profiler.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::GpuMetricSum;
using brickprof::kSummed;
using brickprof::Node;
using brickprof::NodeKind;
using brickprof::Trace;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;

namespace {

constexpr char kDefaultStatusStart[] = "kernel replay, 2 passes per kernel: ";

class GpuMetricsTest : public TempDirTest {
 protected:
  static std::map<std::string, std::string> fake_env() {
    return {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
  }
  std::map<std::string, std::string> agent_env(const std::string& metrics,
                                               const std::string& every = "") {
    auto env = fake_env();
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / "out-%p").string();
    env["BRICKPROF_FORMATS"] = "json";
    env["BRICKPROF_GPU_METRICS"] = metrics;
    if (!every.empty()) env["BRICKPROF_GPU_METRICS_EVERY"] = every;
    return env;
  }

  // The app alone and with the agent: same status, same stdout.
  Result run_app(const std::map<std::string, std::string>& env) {
    auto plain_env = fake_env();
    if (env.count(fake_range_profiler::kEnvRefuse))
      plain_env[fake_range_profiler::kEnvRefuse] = env.at(fake_range_profiler::kEnvRefuse);
    Result plain = run({FAKE_GPU_APP}, plain_env);
    EXPECT_EQ(plain.exit_code(), 0) << plain.err;
    Result traced = run({FAKE_GPU_APP}, env);
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);
    EXPECT_EQ(traced.out, fake_gpu_app::kStdout);
    return traced;
  }

  Trace load_trace() {
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().extension() == ".json") return brickprof::read_trace_file(e.path().string());
    ADD_FAILURE() << "no trace written";
    return Trace();
  }
};

fake_range_profiler::Launch launch_of(const Trace& t, const Node& kernel) {
  const brickprof::GpuDetail* d = t.detail(kernel);
  return {{d->grid[0], d->grid[1], d->grid[2]}, {d->block[0], d->block[1], d->block[2]}};
}

double fake_value(const std::string& metric, const fake_range_profiler::Launch& l) {
  double v = std::nan("");
  EXPECT_TRUE(fake_range_profiler::value_of(metric, l, &v)) << metric;
  return v;
}

size_t lines_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(part) != std::string::npos;
  return n;
}

// Every kernel profiled (1 in 1): its values are the fake's for its grid and
// block, metric by metric; the weights the plan added are there too.
TEST_F(GpuMetricsTest, EachKernelCarriesTheFakesValues) {
  run_app(agent_env("default", "1"));
  Trace t = load_trace();
  const brickprof::GpuMetrics& g = t.gpu_metrics;
  EXPECT_EQ(t.diagnostics.gpu_metrics.rfind(kDefaultStatusStart, 0), 0u)
      << t.diagnostics.gpu_metrics;
  EXPECT_EQ(g.metrics,
            (std::vector<std::string>{
                "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
                "sm__warps_active.avg.pct_of_peak_sustained_active",
                "sm__throughput.avg.pct_of_peak_sustained_elapsed", "lts__t_sectors.sum",
                "sm__cycles_active.sum", "gpu__time_duration.sum"}));
  EXPECT_EQ(g.weights,
            (std::vector<int32_t>{5, kSummed, kSummed, 6, 7, kSummed, kSummed, kSummed}));
  EXPECT_EQ(g.passes, 2u);  // 8 metrics, 4 per pass in the fake
  EXPECT_EQ(g.every, 1u);
  EXPECT_EQ(g.occurrences_sampled, fake_gpu_app::kLayers * 2u);
  EXPECT_EQ(g.occurrences_skipped, 0u);
  ASSERT_EQ(g.nodes.size(), fake_gpu_app::kLayers * 4u);
  for (const brickprof::NodeGpuMetrics& n : g.nodes) {
    const Node& kernel = t.nodes[n.node];
    ASSERT_EQ(kernel.kind, NodeKind::kKernel);
    for (size_t i = 0; i < g.metrics.size(); ++i)
      EXPECT_EQ(n.values[i], fake_value(g.metrics[i], launch_of(t, kernel))) << g.metrics[i];
  }
}

// A brick's figure is its kernels': bytes summed, the hit rate weighted by
// L2 sectors, occupancy by active cycles, SM throughput by GPU time,
// computed here from the fake's values.
TEST_F(GpuMetricsTest, BrickIsTheCombinationOfItsKernels) {
  run_app(agent_env("default", "1"));
  Trace t = load_trace();
  const std::vector<GpuMetricSum> by_node = brickprof::gpu_metrics_by_node(t);
  const auto& m = t.gpu_metrics.metrics;
  size_t bricks = 0;
  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    if (t.nodes[id].kind != NodeKind::kBrick) continue;
    ++bricks;
    double read = 0, sectors = 0, hit_x_sectors = 0, cycles = 0, occ_x_cycles = 0, time = 0,
           sm_x_time = 0;
    uint64_t kernels = 0;
    for (uint32_t k = 0; k < t.nodes.size(); ++k) {
      if (t.nodes[k].kind != NodeKind::kKernel || t.nodes[k].parent != id) continue;
      ++kernels;
      const auto l = launch_of(t, t.nodes[k]);
      read += fake_value("dram__bytes_read.sum", l);
      sectors += fake_value("lts__t_sectors.sum", l);
      hit_x_sectors +=
          fake_value("lts__t_sector_hit_rate.pct", l) * fake_value("lts__t_sectors.sum", l);
      cycles += fake_value("sm__cycles_active.sum", l);
      occ_x_cycles += fake_value("sm__warps_active.avg.pct_of_peak_sustained_active", l) *
                      fake_value("sm__cycles_active.sum", l);
      time += fake_value("gpu__time_duration.sum", l);
      sm_x_time += fake_value("sm__throughput.avg.pct_of_peak_sustained_elapsed", l) *
                   fake_value("gpu__time_duration.sum", l);
    }
    ASSERT_GT(kernels, 0u);
    EXPECT_EQ(by_node[id].kernels(), kernels);
    const std::vector<double> v = by_node[id].values();
    EXPECT_DOUBLE_EQ(v[1], read);
    EXPECT_DOUBLE_EQ(v[0], hit_x_sectors / sectors);
    EXPECT_DOUBLE_EQ(v[3], occ_x_cycles / cycles);
    EXPECT_DOUBLE_EQ(v[4], sm_x_time / time);
    EXPECT_DOUBLE_EQ(v[7], time);
    (void)m;
  }
  EXPECT_EQ(bricks, fake_gpu_app::kLayers * 2u);
  // The report's rows say the same: RmsNorm's DRAM bytes are its two launches'.
  const brickprof::GpuMetricReport r = brickprof::analyze_gpu_metrics(t);
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.rows[0].kind, NodeKind::kBrick);
}

// One occurrence in N of each scope path: with N = 2 and two layers, each
// brick's first occurrence (layer 0) is profiled, its second is not.
TEST_F(GpuMetricsTest, OneOccurrenceInNIsProfiled) {
  run_app(agent_env("dram__bytes_read.sum", "2"));
  Trace t = load_trace();
  const brickprof::GpuMetrics& g = t.gpu_metrics;
  EXPECT_EQ(g.every, 2u);
  EXPECT_EQ(g.occurrences_sampled, 2u);
  EXPECT_EQ(g.occurrences_skipped, 2u);
  EXPECT_EQ(g.passes, 1u);
  EXPECT_EQ(g.weights, std::vector<int32_t>{kSummed});
  ASSERT_EQ(g.nodes.size(), 4u);  // layer 0's RmsNorm launch and its three QKV launches
  for (const brickprof::NodeGpuMetrics& n : g.nodes) {
    const Node& layer = t.nodes[t.nodes[t.nodes[n.node].parent].parent];
    ASSERT_EQ(layer.kind, NodeKind::kLayer);
    EXPECT_EQ(t.name(layer), "Layer 0");
  }
  EXPECT_NE(t.diagnostics.gpu_metrics.find("2 of 4 scope occurrences profiled (1 in 2)"),
            std::string::npos)
      << t.diagnostics.gpu_metrics;
}

struct Refusal {
  const char* fake_switch;  // FAKE_CUPTI_PROFILER, or "" for none
  const char* metrics;
  const char* says;  // in the log line and diagnostics.gpu_metrics
};

class GpuMetricsRefusalTest : public GpuMetricsTest,
                              public ::testing::WithParamInterface<Refusal> {};

// Each refusal: one line in the log, the same words in the trace, no
// gpu_metrics section, and every kernel still traced.
TEST_P(GpuMetricsRefusalTest, SaysWhyOnceAndChangesNothingElse) {
  const Refusal& r = GetParam();
  auto env = agent_env(r.metrics, "1");
  if (*r.fake_switch) env[fake_range_profiler::kEnvRefuse] = r.fake_switch;
  Result traced = run_app(env);
  EXPECT_EQ(lines_with(traced.err, "GPU metrics refused"), 1u) << traced.err;
  EXPECT_EQ(lines_with(traced.err, r.says), 1u) << traced.err;
  Trace t = load_trace();
  EXPECT_EQ(t.diagnostics.gpu_metrics.rfind("refused: ", 0), 0u) << t.diagnostics.gpu_metrics;
  EXPECT_NE(t.diagnostics.gpu_metrics.find(r.says), std::string::npos) << t.diagnostics.gpu_metrics;
  EXPECT_TRUE(t.gpu_metrics.empty());
  size_t kernels = 0;
  for (const Node& n : t.nodes) kernels += n.kind == NodeKind::kKernel;
  EXPECT_EQ(kernels, fake_gpu_app::kLayers * 4u);
}

INSTANTIATE_TEST_SUITE_P(
    Refusals, GpuMetricsRefusalTest,
    ::testing::Values(
        Refusal{"privileges", "default",
                "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: the driver lets only administrators read "
                "the GPU's counters (run as root, or load the nvidia module with "
                "NVreg_RestrictProfilingToAdminUsers=0)"},
        Refusal{"busy", "default",
                "CUPTI_ERROR_HARDWARE_BUSY: another client holds the GPU's counters (DCGM's "
                "profiling module"},
        Refusal{"busy-at-start", "default",
                "cuptiRangeProfilerStart: CUPTI_ERROR_HARDWARE_BUSY: another client holds the "
                "GPU's counters"},
        Refusal{"unsupported", "default",
                "device 0 does not support the range profiler: architecture"},
        Refusal{"", "dram__bytes_read.sum,no_such.metric",
                "chip GH100 has no metric 'no_such.metric' (CUPTI_ERROR_INVALID_METRIC_NAME)"}));

// A CUPTI without the range profiler (before 12.6): one line, no section,
// the run otherwise whole.
TEST_F(GpuMetricsTest, RefusesWhereCuptiHasNoRangeProfiler) {
  auto env = agent_env("default", "1");
  env["LD_LIBRARY_PATH"] = std::string(FAKE_CUPTI_WITHOUT_RANGE_PROFILER_DIR) + ":" + FAKE_CUDA_DIR;
  Result traced = run_app(env);
  EXPECT_EQ(lines_with(traced.err,
                       "GPU metrics refused: this CUPTI has no range profiler "
                       "(missing cuptiProfilerInitialize; CUDA 12.6 or later has it)"),
            1u)
      << traced.err;
  Trace t = load_trace();
  EXPECT_EQ(t.diagnostics.gpu_metrics.rfind("refused: this CUPTI has no range profiler", 0), 0u)
      << t.diagnostics.gpu_metrics;
  EXPECT_TRUE(t.gpu_metrics.empty());
  size_t kernels = 0;
  for (const Node& n : t.nodes) kernels += n.kind == NodeKind::kKernel;
  EXPECT_EQ(kernels, fake_gpu_app::kLayers * 4u);
}

// A bad value warns once and keeps the metrics off: no line, no section.
TEST_F(GpuMetricsTest, BadValueWarnsAndKeepsThemOff) {
  Result traced = run_app(agent_env("dram bytes", "1"));
  EXPECT_EQ(lines_with(traced.err, "BRICKPROF_GPU_METRICS='dram bytes' is not valid; using off"),
            1u)
      << traced.err;
  Trace t = load_trace();
  EXPECT_EQ(t.diagnostics.gpu_metrics, "off");
  EXPECT_TRUE(t.gpu_metrics.empty());
}

}  // namespace
