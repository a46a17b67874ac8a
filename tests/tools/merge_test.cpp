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
  EXPECT_EQ(r.err, "brickprof: wrote " + out + "\n");

  auto doc = nlohmann::json::parse(read_file(out));
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

TEST(Merge, SourcesSurviveTheFileAndAnotherMerge) {
  std::string dir = fresh_dir("merge_sources");
  const std::string rank = data_path("tree_small.json");
  const std::string pair = dir + "/pair.json", three = dir + "/three.json";
  ASSERT_EQ(run_brickprof({"merge", rank, rank, "-o", pair}).exit_code, 0);
  auto doc = nlohmann::json::parse(read_file(pair));
  EXPECT_EQ(doc["process"]["pid"], 4242);  // the first input's, not 0
  EXPECT_EQ(doc["process"]["program"], "bricklayer");
  EXPECT_EQ(doc["process"]["host"], "box");
  ASSERT_EQ(doc["sources"].size(), 2u);
  const auto& s1 = doc["sources"][1];
  EXPECT_EQ(s1["label"], "rank 1");
  EXPECT_EQ(s1["file"], rank);
  EXPECT_EQ(s1["pid"], 4242);
  EXPECT_EQ(s1["rank"], -1);  // as recorded; the label says the position
  EXPECT_EQ(s1["host"], "box");
  EXPECT_EQ(s1["cmdline"], "bricklayer --tokens 2");
  EXPECT_EQ(s1["end_ns"], 4000000);
  EXPECT_EQ(s1["threads"][0]["source_tid"], 100);
  EXPECT_EQ(s1["threads"][0]["tid"], doc["nodes"][15]["thread"]);
  EXPECT_EQ(s1["devices"][0]["source_id"], 0);

  // A merged trace merged again keeps its two sources: three in all.
  CliResult r = run_brickprof({"merge", pair, rank, "-o", three});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto all = nlohmann::json::parse(read_file(three));
  ASSERT_EQ(all["sources"].size(), 3u);
  EXPECT_EQ(all["sources"][0]["file"], rank);
  EXPECT_EQ(all["sources"][2]["label"], "rank 1 #2");  // position 1 again: made unique
  EXPECT_EQ(all["diagnostics"]["warnings"].back(),
            "merged ranks: 0 (pid 4242), 1 (pid 4242), 1 #2 (pid 4242)");
  CliResult tree = run_brickprof({"report", "--tree", three});
  ASSERT_EQ(tree.exit_code, 0) << tree.err;
  for (const char* lane : {"rank 0: main", "rank 1: main", "rank 1 #2: main"})
    EXPECT_NE(tree.out.find(lane), std::string::npos) << lane << "\n" << tree.out;
  EXPECT_EQ(tree.out.find("rank 0: rank"), std::string::npos) << tree.out;  // no double prefix
  CliResult summary = run_brickprof({"report", "--summary", three});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("Merged from 3 processes: rank 0 (pid 4242 on box), rank 1 (pid "
                             "4242 on box), rank 1 #2 (pid 4242 on box)"),
            std::string::npos)
      << summary.out;
  CliResult js = run_brickprof({"report", "--json", "--summary", three});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out)["summary"]["sources"].size(), 3u);
}

TEST(Merge, KeepsOnePtxModulePerHash) {
  std::string out = fresh_dir("merge_ptx") + "/merged.json";
  const std::string rank = data_path("ptx_source.json");
  ASSERT_EQ(run_brickprof({"merge", rank, rank, "-o", out}).exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(read_file(out))["ptx"].size(), 2u);
  CliResult ptx = run_brickprof({"ptx", out, "0xa1"});
  EXPECT_EQ(ptx.exit_code, 0) << ptx.err;
  EXPECT_EQ(ptx.out, read_file(data_path("ptx_source.ptx")));
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
