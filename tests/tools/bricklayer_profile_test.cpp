// bricklayer on a CPU backend profiled by the real agent through `brickprof
// run`, then read back by `brickprof report --roofline`: the CPU roof is the
// one bricklayer measured in that same run (its read and FMA probes), and
// it is labelled as such; with the probes skipped it is the labelled table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spawn.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

// A model small enough for a second or so, probes included.
const std::vector<std::string> kSmall = {
    "--layers", "1",   "--hidden",  "256", "--heads",  "4", "--kv-heads", "2", "--ffn",     "512",
    "--vocab",  "128", "--context", "32",  "--prompt", "4", "--tokens",   "2", "--threads", "2"};

struct Profiled {
  CliResult run;
  std::string trace;
};

Profiled profile(const std::string& name, const std::string& probe_seconds,
                 const std::string& capture = "all") {
  std::string dir = fresh_dir(name);
  std::vector<std::string> args = {"run",  "--output", dir + "/bl", "--formats", "json",
                                   "--capture", capture, "--",  BRICKLAYER};
  args.insert(args.end(), kSmall.begin(), kSmall.end());
  args.insert(args.end(), {"--probe-seconds", probe_seconds});
  return {run_brickprof(args, {{"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}}), dir + "/bl.json"};
}

// The figure bricklayer printed after `label` ("read probe 12.34 GB/s").
double printed(const std::string& out, const std::string& label) {
  size_t at = out.find(label);
  return at == std::string::npos ? -1 : std::atof(out.c_str() + at + label.size());
}

// The "CPU peak (...): ..." line of the text roofline.
std::string cpu_peaks_line(const std::string& text) {
  size_t at = text.find("CPU peak (");
  return at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
}

TEST(BricklayerProfile, CpuRooflineUsesThePeaksMeasuredInTheRun) {
  Profiled p = profile("bl_measured", "0.05");
  ASSERT_EQ(p.run.exit_code, 0) << p.run.err;
  const double read_gbps = printed(p.run.out, "read probe ");
  const double fma_gflops = printed(p.run.out, "compute: FMA probe ");
  ASSERT_GT(read_gbps, 0) << p.run.out;
  ASSERT_GT(fma_gflops, 0) << p.run.out;

  CliResult js = run_brickprof({"report", "--json", "--roofline", p.trace});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json roofline = json::parse(js.out)["roofline"];
  int cpu_entries = 0;
  for (const json& e : roofline["entries"]) {
    if (e["on"] != "cpu") continue;
    ++cpu_entries;
    // Printed with two and one decimals.
    EXPECT_NEAR(e["peak_gbps"].get<double>(), read_gbps, 0.006) << e;
    EXPECT_NEAR(e["peak_gflops"].get<double>(), fma_gflops, 0.06) << e;
    EXPECT_EQ(e["peaks_source"].get<std::string>().rfind(
                  "measured by the program (bricklayer read probe (", 0),
              0u)
        << e;
  }
  EXPECT_GT(cpu_entries, 0) << js.out;

  CliResult text = run_brickprof({"report", "--roofline", p.trace});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string line = cpu_peaks_line(text.out);
  EXPECT_NE(line.find("measured by the program): "), std::string::npos) << text.out;
  EXPECT_NE(line.find("(bricklayer read probe ("), std::string::npos) << text.out;
  EXPECT_EQ(line.find("not measured"), std::string::npos) << line;
  // Named for the instruction set the probes ran with, as bricklayer said.
  const std::string how = roofline["entries"][0]["peaks_source"];
  const char* isa = how.find("avx512") != std::string::npos ? "CPU peak (AVX-512, "
                    : how.find("avx2") != std::string::npos ? "CPU peak (AVX2, "
                                                            : "CPU peak (scalar, ";
  EXPECT_EQ(line.rfind(isa, 0), 0u) << line << "\n" << how;
}

TEST(BricklayerProfile, SkippedProbesLeaveTheLabelledTable) {
  Profiled p = profile("bl_skipped", "0");
  ASSERT_EQ(p.run.exit_code, 0) << p.run.err;
  EXPECT_EQ(p.run.out.find("FMA probe"), std::string::npos) << p.run.out;
  CliResult text = run_brickprof({"report", "--roofline", p.trace});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string line = cpu_peaks_line(text.out);
  EXPECT_NE(line.find(", built-in default, not measured): "), std::string::npos) << text.out;
}

json load(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Nodes that are, or lie under, a node named `name`.
size_t nodes_under(const json& trace, const std::string& name) {
  const json& nodes = trace["nodes"];
  size_t count = 0;
  for (const json& n : nodes) {
    for (const json* p = &n;; p = &nodes[(*p)["parent"].get<size_t>()]) {
      if ((*p)["name"] == name) {
        ++count;
        break;
      }
      if ((*p)["parent"].is_null()) break;
    }
  }
  return count;
}

// Capturing only the decode steps keeps what `--under "decode token"`
// selects from a whole run, and nothing else.
TEST(BricklayerProfile, CapturingTheDecodeStepsKeepsExactlyThem) {
  Profiled whole = profile("bl_whole", "0");
  Profiled decode = profile("bl_decode", "0", "scope:decode token");
  ASSERT_EQ(whole.run.exit_code, 0) << whole.run.err;
  ASSERT_EQ(decode.run.exit_code, 0) << decode.run.err;
  json w = load(whole.trace), d = load(decode.trace);
  size_t steps = nodes_under(w, "decode token");
  ASSERT_GT(steps, 0u);
  EXPECT_LT(steps, w["nodes"].size());  // prefill and the rest are not under it
  EXPECT_EQ(d["nodes"].size(), steps);
  EXPECT_EQ(nodes_under(d, "decode token"), steps);
  EXPECT_EQ(d["diagnostics"]["capture"].get<std::string>().rfind(
                "scope 'decode token': 2 windows, ", 0),
            0u)
      << d["diagnostics"];
  EXPECT_EQ(d["diagnostics"]["unbalanced_pops"], 0);
  EXPECT_EQ(d["diagnostics"]["scopes_cut_by_capture"], 0);
}

}  // namespace
}  // namespace brickprof::test
