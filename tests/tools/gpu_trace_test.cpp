// Traces captured on a GPU (scripts/gpu-check's "small graph-mode trace"
// step), committed under tests/data/gpu/, replayed through every analysis
// and export: what real CUPTI records look like stays covered in CI. The
// first, bricklayer-graph.json, came from an H100 (2026-11-24, commit
// 68817fd).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "spawn.h"
#include "tests/support/trace_query.h"

namespace brickprof::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace brickprof::test::trace_query;

std::vector<std::string> gpu_traces() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(data_path("gpu")))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  return out;
}

// bricklayer under the agent: CUPTI active, nothing dropped, every kernel
// under a brick (or the probe's scope) with a measured duration and the
// hash of a module in ptx[].
void expect_captured(const json& t, const std::string& file) {
  const json& d = t["diagnostics"];
  EXPECT_EQ(d["cupti"].get<std::string>().rfind("active (", 0), 0u) << file << ": " << d["cupti"];
  EXPECT_EQ(d["dropped_activity_records"], 0) << file;
  std::set<std::string> modules;
  for (const json& m : t["ptx"]) modules.insert(m["hash"].get<std::string>());
  const auto kernels = of_kind(t, "kernel");
  ASSERT_FALSE(kernels.empty()) << file;
  size_t replayed = 0;
  for (const json* k : kernels) {
    ASSERT_FALSE((*k)["parent"].is_null()) << file << ": " << k->dump();
    const json& parent = parent_of(t, *k);
    EXPECT_TRUE(parent["kind"] == "brick" || parent["name"] == "bandwidth probe")
        << file << ": " << k->dump();
    EXPECT_GT(duration(*k), 0) << file << ": " << k->dump();
    EXPECT_EQ(modules.count((*k)["ptx_hash"].get<std::string>()), 1u) << file << ": " << k->dump();
    replayed += graph_node(*k) != 0;
  }
  if (file.find("graph") != std::string::npos) {
    EXPECT_GT(replayed, 0u) << file;
    // Each captured node ran once per decode step, always under one brick.
    std::map<uint64_t, std::vector<const json*>> runs;
    for (const json* k : kernels)
      if (graph_node(*k) != 0) runs[graph_node(*k)].push_back(k);
    size_t steps = 0;
    for (const json* s : of_kind(t, "scope")) steps += (*s)["name"] == "decode token";
    for (const auto& [node, ks] : runs) {
      EXPECT_EQ(ks.size(), steps) << file << ": graph node " << node;
      for (const json* k : ks) EXPECT_EQ((*k)["parent"], ks[0]->at("parent")) << file;
    }
  }
}

TEST(GpuTraces, ReplayThroughEveryAnalysisAndExport) {
  const auto traces = gpu_traces();
  if (traces.empty()) GTEST_SKIP() << "no GPU-captured trace in tests/data/gpu/ yet";
  for (const std::string& file : traces) {
    expect_captured(json::parse(read_file(file)), file);
    for (const auto& flags : report_views()) {
      std::vector<std::string> args = {"report", file};
      args.insert(args.end(), flags.begin(), flags.end());
      CliResult r = run_brickprof(args);
      EXPECT_EQ(r.exit_code, 0) << file << " " << flags[0] << ": " << r.err;
      EXPECT_EQ(r.err, "") << file << " " << flags[0];
      EXPECT_NE(r.out.find("bl_gemv"), std::string::npos) << file << " " << flags[0];
    }
  }
}

}  // namespace
}  // namespace brickprof::test
