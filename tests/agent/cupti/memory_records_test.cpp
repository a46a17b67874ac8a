// CUPTI's memory records end to end on the fake driver (memory_records_app):
// a pool's reserve, which no API call states, follows the driver's figures
// through growth and trims; a graph's memory nodes allocate and free at
// each launch, under the launch's scope; and no byte is counted twice (the
// records of calls the callbacks saw, and the captured calls that only made
// nodes, add no event).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

uint64_t hex(const json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); }

std::string scope_name(const json& t, const json& event) {
  if (!event.contains("scope") || event["scope"].is_null()) return "-";
  return t["nodes"][event["scope"].get<size_t>()]["name"].get<std::string>();
}

class MemoryRecordsTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const std::map<std::string, std::string> plain_env = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
    const Result plain = run({MEMORY_RECORDS_APP, (dir_ / "plain.truth").string()}, plain_env);
    auto env = plain_env;
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / "out").string();
    env["BRICKPROF_FORMATS"] = "json";
    const Result traced = run({MEMORY_RECORDS_APP, (dir_ / "truth").string()}, env);
    ASSERT_EQ(plain.exit_code(), 0) << plain.err;
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);
    std::ifstream in(dir_ / "out.json");
    ASSERT_TRUE(in) << traced.err;
    trace_ = json::parse(in);
    std::ifstream truth(dir_ / "truth");
    for (std::string line; std::getline(truth, line);) {
      std::istringstream fields(line);
      std::string what;
      fields >> what;
      if (what == "reserve") {
        uint64_t bytes;
        fields >> bytes;
        if (reserves_.empty() ? bytes != 0 : bytes != reserves_.back()) reserves_.push_back(bytes);
      } else if (what == "graph") {
        fields >> graph_address_ >> graph_bytes_;
      }
    }
  }
  std::vector<json> events_of(const std::string& source) const {
    std::vector<json> out;
    for (const json& e : trace_["memory"])
      if (e["source"] == source) out.push_back(e);
    return out;
  }
  json trace_;
  std::vector<uint64_t> reserves_;  // the driver's, each change
  uint64_t graph_address_ = 0, graph_bytes_ = 0;
};

TEST_F(MemoryRecordsTest, PoolReserveFollowsTheDriverThroughGrowthAndTrims) {
  // 3 MiB and 2 MiB from a pool that reserves in 2 MiB granules: 4, then 6;
  // a trim keeps what is handed out (2), the last trim gives back all.
  const std::vector<uint64_t> expected = {4 * kMiB, 6 * kMiB, 2 * kMiB, 0};
  ASSERT_EQ(reserves_, expected) << "the fake driver's own figures";
  const std::vector<json> reserve = events_of("pool_reserve");
  ASSERT_EQ(reserve.size(), expected.size() + 1) << trace_["memory"].dump(1);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(reserve[i]["op"], "alloc") << reserve[i].dump();
    EXPECT_EQ(reserve[i].value("bytes", uint64_t{0}), expected[i]) << reserve[i].dump();
  }
  EXPECT_EQ(reserve.back()["op"], "free") << "the pool destroyed";
  for (const json& e : reserve) {
    EXPECT_EQ(hex(e["address"]), hex(reserve[0]["address"])) << "one pool";
    EXPECT_EQ(e["device"], 0);
    EXPECT_EQ(scope_name(trace_, e), "-") << "the pool's, not a scope's";
  }
  // The allocations' own records added nothing: the callbacks' events alone.
  std::vector<std::string> ops;
  for (const json& e : events_of("async")) ops.push_back(e["op"]);
  const std::vector<std::string> calls = {"alloc", "alloc", "free", "trim", "free", "trim"};
  EXPECT_EQ(ops, calls);
}

TEST_F(MemoryRecordsTest, GraphMemoryNodesAllocateAtEachLaunchUnderItsScope) {
  ASSERT_EQ(graph_bytes_, 8 * kMiB);
  const std::vector<json> graph = events_of("graph");
  ASSERT_EQ(graph.size(), 4u) << trace_["memory"].dump(1);
  for (size_t i = 0; i < graph.size(); ++i) {
    const json& e = graph[i];
    EXPECT_EQ(e["op"], i % 2 == 0 ? "alloc" : "free") << e.dump();
    EXPECT_EQ(hex(e["address"]), graph_address_) << e.dump();
    EXPECT_EQ(e.value("bytes", uint64_t{0}), i % 2 == 0 ? graph_bytes_ : 0) << e.dump();
    EXPECT_EQ(scope_name(trace_, e), "replay") << e.dump();
    EXPECT_EQ(e["device"], 0);
  }
  // The captured cuMemAllocAsync/cuMemFreeAsync allocated nothing: no event.
  for (const json& e : events_of("async"))
    EXPECT_NE(scope_name(trace_, e), "capture") << e.dump();
}

}  // namespace
