// `brickprof merge FILES... -o OUT`: the merged trace is written atomically
// and `brickprof report` reads it back with every rank in it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(Merge, MergedTraceIsReadableByReport) {
  std::string dir = fresh_dir("merge");
  std::string out = dir + "/merged.json";
  const std::string rank = data_path("tree_small.json");
  CliResult r = run_brickprof({"merge", rank, rank, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");

  auto doc = nlohmann::json::parse(read_text(out));
  EXPECT_EQ(doc["schema"], "brickprof/1");
  EXPECT_EQ(doc["nodes"].size(), 30u);  // 15 per rank
  EXPECT_EQ(doc["process"]["rank"], -1);
  EXPECT_EQ(doc["diagnostics"]["warnings"].back(), "merged ranks: 0 (pid 4242), 1 (pid 4242)");
  EXPECT_EQ(doc["devices"][1]["name"], "rank 1: Test GPU");

  CliResult report = run_brickprof({"report", "--json", "--summary", out});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  auto summary = nlohmann::json::parse(report.out)["summary"];
  EXPECT_EQ(summary["bricks"][0]["name"], "RmsNorm");
  EXPECT_EQ(summary["bricks"][0]["count"], 6);  // 3 per rank
  EXPECT_EQ(summary["kernels"], 8);
  // Two ranks' threads stay apart: the tree has one group per rank.
  CliResult tree = run_brickprof({"report", "--tree", out});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  EXPECT_NE(tree.out.find("rank 0: main"), std::string::npos) << tree.out;
  EXPECT_NE(tree.out.find("rank 1: main"), std::string::npos) << tree.out;
}

TEST(Merge, KeepsOnePtxModulePerHash) {
  std::string out = fresh_dir("merge_ptx") + "/merged.json";
  const std::string rank = data_path("ptx_source.json");
  ASSERT_EQ(run_brickprof({"merge", rank, rank, "-o", out}).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(read_text(out))["ptx"].size(), 2u);
  CliResult ptx = run_brickprof({"ptx", out, "0xa1"});
  EXPECT_EQ(ptx.exit_code, 0) << ptx.err;
  EXPECT_EQ(ptx.out, read_text(data_path("ptx_source.ptx")));
}

TEST(Merge, BadInputWritesNothing) {
  std::string dir = fresh_dir("merge_bad");
  std::string out = dir + "/merged.json";
  const std::string bad = data_path("bad_parent_cycle.json");
  CliResult r = run_brickprof({"merge", data_path("tree_small.json"), bad, "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: " + bad + ": ", 0), 0u) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // no output, no temporary left
}

TEST(Merge, UnwritableOutputIsOneLine) {
  std::string out = fresh_dir("merge_unwritable") + "/no/such/dir/merged.json";
  CliResult r = run_brickprof({"merge", data_path("tree_small.json"), "-o", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: " + out + ": ", 0), 0u) << r.err;
}

TEST(Merge, UsageErrors) {
  for (const auto& args : {std::vector<std::string>{"merge", data_path("tree_small.json")},
                           {"merge", "-o", "out.json"}}) {
    CliResult r = run_brickprof(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

}  // namespace
}  // namespace brickprof::test
