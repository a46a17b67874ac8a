// `brickprof report --peak-gflops X --peak-gbps X --link-gbps X`: the peaks
// reach the roofline and transfers views, text and --json, which say
// "override" for each figure given; a bad value is exit 2 before reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

// roofline.json: GPU 0 recorded 1000 GFLOP/s and 100 GB/s ("device
// attributes"); RmsNorm runs on the CPU, which recorded nothing (AVX2 row).
const std::string kRoofline = data_path("analyses/roofline.json");
// transfers.json: a "Test GPU" (25 GB/s PCIe 4.0 default link), six copies
// of 1 MiB or more.
const std::string kTransfers = data_path("analyses/transfers.json");

CliResult report(std::vector<std::string> args) {
  args.insert(args.begin(), "report");
  CliResult r = run_brickprof(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return r;
}

const json* entry(const json& roofline, const std::string& name) {
  for (const json& e : roofline["entries"])
    if (e["name"] == name) return &e;
  return nullptr;
}

TEST(ReportPeaks, BothRooflinePeaksOverrideGpuAndCpuInText) {
  CliResult r = report({kRoofline, "--roofline", "--peak-gflops", "2000", "--peak-gbps", "50"});
  EXPECT_NE(r.out.find("  GPU 0 peak (Test GPU, override): 2.00TFLOP/s, 50.00GB/s, ridge 40.0 "
                       "FLOP/B\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  CPU peak (override): 2.00TFLOP/s, 50.00GB/s, ridge 40.0 FLOP/B\n"),
            std::string::npos)
      << r.out;
  // big_gemm does 500 GFLOP/s: half the recorded roof, a quarter of 2000.
  EXPECT_NE(r.out.find("compute   25.0%  kernel"), std::string::npos) << r.out;
}

TEST(ReportPeaks, BothRooflinePeaksOverrideInJson) {
  CliResult r =
      report({kRoofline, "--roofline", "--json", "--peak-gflops", "2000", "--peak-gbps", "50"});
  json roof = json::parse(r.out)["roofline"];
  ASSERT_EQ(roof["entries"].size(), 5u);
  for (const json& e : roof["entries"]) {
    EXPECT_EQ(e["peak_gflops"], 2000.0) << e;
    EXPECT_EQ(e["peak_gbps"], 50.0) << e;
    EXPECT_EQ(e["peaks_source"], "override") << e;
  }
  const json* gemm = entry(roof, "big_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_DOUBLE_EQ((*gemm)["efficiency"].get<double>(), 0.25);
  const json* gate = entry(roof, "GateProjection");  // 2 FLOP/B x 50 GB/s
  ASSERT_NE(gate, nullptr);
  EXPECT_DOUBLE_EQ((*gate)["roof_gflops"].get<double>(), 100.0);
}

TEST(ReportPeaks, OneOverrideLabelsOnlyItsOwnFigure) {
  CliResult text = report({kRoofline, "--roofline", "--peak-gbps", "50"});
  EXPECT_NE(text.out.find("  GPU 0 peak (Test GPU, FLOP/s device attributes; bandwidth override): "
                          "1.00TFLOP/s, 50.00GB/s, ridge 20.0 FLOP/B\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("  CPU peak (AVX2, FLOP/s built-in default, not measured; bandwidth "
                          "override): 500.00GFLOP/s, 50.00GB/s, ridge 10.0 FLOP/B\n"),
            std::string::npos)
      << text.out;
  CliResult js = report({kRoofline, "--roofline", "--json", "--peak-gflops", "4000"});
  json doc = json::parse(js.out);
  const json* gemm = entry(doc["roofline"], "big_gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ((*gemm)["peak_gflops"], 4000.0);
  EXPECT_EQ((*gemm)["peak_gbps"], 100.0);
  EXPECT_EQ((*gemm)["peaks_source"], "FLOP/s override; bandwidth device attributes");
}

// The case the options are for: a GPU whose peaks were not measured.
TEST(ReportPeaks, OverrideShowsWhereTheTraceHasNoPeaks) {
  std::string file = edited_copy("analyses/roofline.json", "unmeasured",
                                 {{"\"peak_gflops\": 1000", "\"peak_gflops\": 0"},
                                  {"\"peak_gbps\": 100", "\"peak_gbps\": 0"}});
  CliResult r = report({file, "--roofline", "--peak-gbps", "3350"});
  EXPECT_NE(r.out.find("  GPU 0 peak (Test GPU, FLOP/s built-in RTX 4090 default, not measured; "
                       "bandwidth override): 83.00TFLOP/s, 3.35TB/s, ridge 24.8 FLOP/B\n"),
            std::string::npos)
      << r.out;
}

TEST(ReportPeaks, UnderKeepsTheOverrides) {
  CliResult r = report({kRoofline, "--under", "GateProjection", "--roofline", "--peak-gflops",
                        "2000", "--peak-gbps", "50"});
  EXPECT_EQ(r.out.rfind("Under \"GateProjection\": 1 scope, 4 of 5 nodes\n\nRoofline\n"
                        "  GPU 0 peak (Test GPU, override): 2.00TFLOP/s, 50.00GB/s, ridge 40.0 "
                        "FLOP/B\n",
                        0),
            0u)
      << r.out;
  CliResult js = report({kRoofline, "--json", "--under", "GateProjection", "--roofline",
                         "--peak-gflops", "2000", "--peak-gbps", "50"});
  json doc = json::parse(js.out);
  EXPECT_EQ(doc["under"]["nodes"], 4);
  ASSERT_EQ(doc["roofline"]["entries"].size(), 4u);
  for (const json& e : doc["roofline"]["entries"]) EXPECT_EQ(e["peaks_source"], "override") << e;
}

TEST(ReportPeaks, LinkOverrideReachesTransfers) {
  CliResult before = report({kTransfers, "--transfers"});
  EXPECT_EQ(
      before.out.rfind("Transfers (link 25.00GB/s, default (PCIe 4.0 x16, not measured))\n", 0), 0u)
      << before.out;
  CliResult text = report({kTransfers, "--transfers", "--link-gbps", "100"});
  EXPECT_EQ(text.out.rfind("Transfers (link 100.00GB/s, override)\n", 0), 0u) << text.out;
  // Against a 4x faster link the 8 MiB copy is 8%, not 34%, of it.
  EXPECT_NE(text.out.find("Layer 0 / LmHead: 8.0MiB at 8.39GB/s (8% of link)"), std::string::npos)
      << text.out;
  CliResult js = report({kTransfers, "--transfers", "--json", "--link-gbps", "100"});
  json tr = json::parse(js.out)["transfers"];
  EXPECT_EQ(tr["link"]["gbps"], 100.0);
  EXPECT_EQ(tr["link"]["source"], "override");
  EXPECT_EQ(tr["slow"].size(), 6u);  // every 1 MiB+ copy is under half of 100 GB/s (3 at 25)
}

TEST(ReportPeaks, RooflinePeaksLeaveTheLinkAlone) {
  CliResult r = report({kTransfers, "--transfers", "--peak-gbps", "100", "--peak-gflops", "10"});
  EXPECT_EQ(r.out.rfind("Transfers (link 25.00GB/s, default (PCIe 4.0 x16, not measured))\n", 0),
            0u)
      << r.out;
}

struct BadPeak {
  const char* flag;
  const char* value;
  const char* unit;
};

void PrintTo(const BadPeak& p, std::ostream* out) { *out << p.flag << " '" << p.value << "'"; }

class BadPeakValue : public ::testing::TestWithParam<BadPeak> {};

TEST_P(BadPeakValue, ExitTwoWithOneLineBeforeReading) {
  const BadPeak& p = GetParam();
  // The file does not exist: the value is rejected before it is read.
  CliResult r =
      run_brickprof({"report", "--roofline", "--transfers", p.flag, p.value, "missing.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, std::string("brickprof: report: ") + p.flag +
                       ": expected a positive number of " + p.unit + ", got '" + p.value + "'\n");
}

INSTANTIATE_TEST_SUITE_P(
    Values, BadPeakValue,
    ::testing::Values(
        BadPeak{"--peak-gbps", "abc", "GB/s"}, BadPeak{"--peak-gbps", "0", "GB/s"},
        BadPeak{"--peak-gbps", "-5", "GB/s"}, BadPeak{"--peak-gbps", "inf", "GB/s"},
        BadPeak{"--peak-gbps", "nan", "GB/s"}, BadPeak{"--peak-gbps", "1e999", "GB/s"},
        BadPeak{"--peak-gbps", "50GB/s", "GB/s"}, BadPeak{"--peak-gflops", "abc", "GFLOP/s"},
        BadPeak{"--peak-gflops", "-1", "GFLOP/s"}, BadPeak{"--link-gbps", "abc", "GB/s"},
        BadPeak{"--link-gbps", "0", "GB/s"}, BadPeak{"--link-gbps", "", "GB/s"}));

}  // namespace
}  // namespace brickprof::test
