// bricklayer under the agent: the trace's program-level bytes per pool
// (brickprof_mem_alloc, source "program") equal what bricklayer prints for
// its weights, activations and KV cache; on the CUDA backend (the fake
// driver running the emulated kernels) the driver-level bytes (source
// "device") equal the sum of its cuMemAllocs, which it also prints; every
// brick carries its shapes, and report --analyze splits its ops by them.
// The program's output and exit code are the same without the agent.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_query.h"
#include "trace/model/ids.h"

namespace {

using brickprof::test::Result;
using brickprof::test::run;
using nlohmann::json;
using namespace brickprof::test::trace_query;

const std::vector<std::string> kSmallModel = {
    "--layers", "2",   "--hidden", "256", "--heads",  "4",  "--kv-heads",      "2",
    "--ffn",    "512", "--vocab",  "512", "--prompt", "4",  "--tokens",        "3",
    "--probe-seconds", "0"};

// What bricklayer printed: "memory (bytes): weights N, activations N,
// kv_cache N[; from the CUDA driver N in K cuMemAlloc]".
struct Printed {
  std::map<std::string, uint64_t> pools;
  uint64_t driver_bytes = 0, driver_allocs = 0;
};

Printed printed_figures(const std::string& out) {
  Printed p;
  std::smatch m;
  const std::regex line(
      R"(memory \(bytes\): weights (\d+), activations (\d+), kv_cache (\d+)(; from the CUDA driver (\d+) in (\d+) cuMemAlloc)?)");
  EXPECT_TRUE(std::regex_search(out, m, line)) << out;
  if (m.empty()) return p;
  p.pools = {{"weights", std::stoull(m[1])},
             {"activations", std::stoull(m[2])},
             {"kv_cache", std::stoull(m[3])}};
  if (m[4].matched) {
    p.driver_bytes = std::stoull(m[5]);
    p.driver_allocs = std::stoull(m[6]);
  }
  return p;
}

// The lines without timings (rates and bandwidth change run to run).
std::string stable_lines(const std::string& out) {
  std::string kept;
  for (const char* prefix : {"memory (bytes)", "generated", "ops per decode step"}) {
    const size_t at = out.find(prefix);
    if (at != std::string::npos) kept += out.substr(at, out.find('\n', at) - at + 1);
  }
  return kept;
}

class AgentMemoryTest : public brickprof::test::TempDirTest {
 protected:
  // bricklayer with `args`, without and with the agent: the trace, and
  // what it printed.
  json run_bricklayer(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env, std::string* out) {
    std::vector<std::string> argv = {BRICKLAYER};
    argv.insert(argv.end(), kSmallModel.begin(), kSmallModel.end());
    argv.insert(argv.end(), args.begin(), args.end());
    Result plain = run(argv, env);
    EXPECT_EQ(plain.exit_code(), 0) << plain.err;
    std::map<std::string, std::string> traced_env = env;
    traced_env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    traced_env["BRICKPROF_OUTPUT"] = (dir_ / "bl").string();
    traced_env["BRICKPROF_FORMATS"] = "json";
    Result traced = run(argv, traced_env);
    EXPECT_EQ(traced.exit_code(), 0) << traced.err;
    EXPECT_EQ(stable_lines(traced.out), stable_lines(plain.out));
    *out = traced.out;
    std::ifstream in(dir_ / "bl.json");
    return json::parse(in, nullptr, false);
  }

  // Program bytes allocated per pool, and what is still live at the end.
  static std::map<std::string, uint64_t> program_bytes(const json& t,
                                                       std::map<std::string, int64_t>* live) {
    std::map<std::string, uint64_t> by_pool;
    std::map<std::string, uint64_t> bytes_at;  // address -> bytes, while live
    for (const json& e : t["memory"]) {
      if (e["source"] != "program") continue;
      const std::string pool = e["api"], at = e["address"];
      if (e["op"] == "alloc") {
        by_pool[pool] += e["bytes"].get<uint64_t>();
        bytes_at[at] = e["bytes"].get<uint64_t>();
        (*live)[pool] += e["bytes"].get<int64_t>();
      } else if (e["op"] == "free") {
        (*live)[pool] -= static_cast<int64_t>(bytes_at[at]);
        bytes_at.erase(at);
      }
    }
    return by_pool;
  }

  // Every brick node has a shape entry; the QKV projections read Q4_K weights.
  static void expect_shapes(const json& t) {
    ASSERT_TRUE(t.contains("shapes")) << "no shapes section";
    std::map<uint64_t, const json*> shape_of;
    for (const json& s : t["shapes"]) shape_of[s["node"].get<uint64_t>()] = &s;
    size_t bricks = 0, qkv = 0;
    for (size_t i = 0; i < t["nodes"].size(); ++i) {
      const json& n = t["nodes"][i];
      if (n["kind"] != "brick") continue;
      ++bricks;
      auto it = shape_of.find(n["id"].get<uint64_t>());
      ASSERT_NE(it, shape_of.end()) << "brick " << n["name"] << " has no shape";
      if (n["name"] == "QkvProjection") {
        ++qkv;
        EXPECT_EQ((*it->second)["dtype"], "q4_k");
        EXPECT_EQ((*it->second)["inputs"].size(), 2u);
      }
    }
    EXPECT_GT(bricks, 0u);
    EXPECT_GT(qkv, 0u);
  }

  // report --analyze --json: the ops split by shape, QkvProjection among them.
  void expect_ops_by_shape() {
    Result r = run({BRICKPROF_BIN, "report", "--analyze", "--json", (dir_ / "bl.json").string()},
                   {});
    ASSERT_EQ(r.exit_code(), 0) << r.err;
    const json a = json::parse(r.out)["analyze"];
    ASSERT_TRUE(a.contains("ops_by_shape")) << r.out.substr(0, 2000);
    std::set<std::string> names;
    for (const json& row : a["ops_by_shape"]) names.insert(row["name"].get<std::string>());
    EXPECT_FALSE(a["ops_by_shape"].empty());
    Result text = run({BRICKPROF_BIN, "report", "--analyze", (dir_ / "bl.json").string()}, {});
    EXPECT_NE(text.out.find("Operations by shape"), std::string::npos) << text.out;
  }
};

TEST_F(AgentMemoryTest, CpuPoolsInTheTraceAreBricklayersFigures) {
  std::string out;
  const json t = run_bricklayer({"--backend", "scalar"}, {}, &out);
  ASSERT_FALSE(t.is_discarded());
  const Printed printed = printed_figures(out);
  std::map<std::string, int64_t> live;
  EXPECT_EQ(program_bytes(t, &live), printed.pools);
  for (const auto& [pool, bytes] : live) EXPECT_EQ(bytes, 0) << pool << " left live at exit";
  for (const json& e : t["memory"]) {  // host memory: the host's
    if (e["source"] != "program") continue;
    EXPECT_EQ(e["device"], brickprof::kHostDeviceId) << e.dump();
  }
  expect_shapes(t);
  expect_ops_by_shape();
}

#ifdef FAKE_CUDA_DIR
// The emulated kernels on the fake driver: both views, the program's pools
// inside the driver's segments.
TEST_F(AgentMemoryTest, CudaReservedIsItsCuMemAllocsAndUsedIsItsFigures) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator in this build";
  std::string out;
  const json t = run_bricklayer(
      {"--backend", "cuda"},
      {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}, {"FAKE_CUDA_KERNELS", EMULATED_KERNELS}}, &out);
  ASSERT_FALSE(t.is_discarded());
  const Printed printed = printed_figures(out);
  ASSERT_GT(printed.driver_bytes, 0u);
  std::map<std::string, int64_t> live;
  EXPECT_EQ(program_bytes(t, &live), printed.pools);
  for (const auto& [pool, bytes] : live) EXPECT_EQ(bytes, 0) << pool << " left live at exit";
  uint64_t reserved = 0, allocs = 0;
  for (const json& e : t["memory"]) {
    if (e["source"] != "device" || e["op"] != "alloc" || e.value("result", 0) != 0) continue;
    reserved += e["bytes"].get<uint64_t>();
    ++allocs;
  }
  EXPECT_EQ(reserved, printed.driver_bytes);
  EXPECT_EQ(allocs, printed.driver_allocs);
  uint64_t used = 0;
  for (const auto& [pool, bytes] : printed.pools) used += bytes;
  EXPECT_LT(used, reserved);  // the segments hold the pools, and more (alignment, scratch)
  // The pools are carved from those segments: their events are GPU 0's
  // (agent/io/program_memory_devices.h), so report --memory says "on GPU 0".
  for (const json& e : t["memory"]) {
    if (e["source"] != "program") continue;
    EXPECT_EQ(e["device"], 0) << e.dump();
  }
  expect_shapes(t);
  expect_ops_by_shape();
}
#endif

}  // namespace
