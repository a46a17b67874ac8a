// The agent's memory stays bounded by BRICKPROF_BUFFER_MB: run-time names
// past the cap fall back to a catch-all site and are counted, exited
// threads leave (almost) nothing behind, and the exit write streams
// instead of building the whole trace in memory. Margins are generous:
// each case measures tens of megabytes where the unbounded agent grew.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

namespace {

using brickprof::test::Result;
using brickprof::test::run;
using nlohmann::json;

class MemoryTest : public brickprof::test::PreloadFixture {
 protected:
  // A child's peak resident memory counts the pages it shared with this
  // process between fork and exec: give back what parsing traces took.
  void SetUp() override {
    PreloadFixture::SetUp();
    malloc_trim(0);
  }
  struct Rss {
    long before_kb = -1, after_kb = -1;
  };
  Rss rss_of(const Result& r) {
    Rss rss;
    std::istringstream(r.out) >> rss.before_kb >> rss.after_kb;
    return rss;
  }
  size_t count_named(const json& t, const std::string& name) {
    size_t n = 0;
    for (const json& node : t["nodes"]) n += node["name"] == name;
    return n;
  }
};

TEST_F(MemoryTest, NamesPastTheCapFallBackToACatchAllAndAreCounted) {
  constexpr long kNames = 200000;  // ~43 MB of names were kept past a 1 MB cap
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "1";
  Result r = run({BRICKPROF_MEMORY_APP, "names", std::to_string(kNames)}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  Rss rss = rss_of(r);
  EXPECT_LT(rss.after_kb - rss.before_kb, 8 * 1024) << "names past the cap were kept";
  json t = load_only_output();
  const json& d = t["diagnostics"];
  ASSERT_TRUE(d.contains("dropped_names"));
  EXPECT_GT(d["dropped_names"].get<uint64_t>(), 0u);
  // Every push is a node (named, or "(other)") or a dropped event.
  EXPECT_GE(t["nodes"].size() + d["dropped_events"].get<uint64_t>(), uint64_t{kNames});
  bool warned = false;
  for (const json& w : d["warnings"])
    warned |= w.get<std::string>().find("names") != std::string::npos;
  EXPECT_TRUE(warned) << d["warnings"];
}

TEST_F(MemoryTest, ExitedThreadsLeaveAlmostNothingBehind) {
  constexpr long kThreads = 50000;  // each left ~700 bytes resident and 8 KiB of budget
  Result r = run({BRICKPROF_MEMORY_APP, "threads", std::to_string(kThreads)}, agent_env());
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  Rss rss = rss_of(r);
  EXPECT_LT(rss.after_kb - rss.before_kb, 16 * 1024) << "exited threads' state was kept";
  json t = load_only_output();
  EXPECT_EQ(t["diagnostics"]["dropped_events"], 0);
  EXPECT_EQ(count_named(t, "short-lived worker"), size_t{kThreads});
}

TEST_F(MemoryTest, ExitWriteStaysWithinTheCapPlusAConstant) {
  // A full 32 MB buffer: the write used to build the whole trace (about
  // 2.3 times the events) before writing a byte.
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "32";
  env["BRICKPROF_FORMATS"] = "json,tree,dot,chrome,folded";
  Result r = run({BRICKPROF_MEMORY_APP, "fill", "48"}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  Rss rss = rss_of(r);
  EXPECT_LT(r.peak_rss_kb - rss.after_kb, 24 * 1024)
      << "peak " << r.peak_rss_kb << " kB, before the write " << rss.after_kb << " kB";
  auto files = outputs();
  ASSERT_EQ(files.size(), 2u);  // .json and .trace.json
  std::string json_path = files[0].string().find(".trace.json") == std::string::npos
                              ? files[0].string()
                              : files[1].string();
  brickprof::Trace t = brickprof::read_trace_file(json_path);  // too big for nlohmann
  EXPECT_GT(t.diagnostics.dropped_events, 0u);                 // it was full
  EXPECT_GT(t.nodes.size(), 500000u);
}

// The exit write's aggregate tree (tree, DOT, folded) draws on the budget
// like the events it is built from: 10^5 distinct names under a 16 MB cap
// make one of 2 * 10^5 entries, which does not fit; the JSON is written
// whole and says so, the other two are not written. Memory stays within
// the cap (the previous write built both, and peaked 47 MB over the
// program's resident memory).
TEST_F(MemoryTest, AnAggregateTreePastTheCapIsLeftOutAndSaid) {
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "16";
  env["BRICKPROF_FORMATS"] = "json,tree,dot";
  Result r = run({BRICKPROF_MEMORY_APP, "names", "100000"}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  Rss rss = rss_of(r);
  EXPECT_LT(r.peak_rss_kb - rss.after_kb, 28 * 1024);
  EXPECT_TRUE(outputs(".tree.txt").empty());
  EXPECT_TRUE(outputs(".dot").empty());
  EXPECT_NE(r.err.find("did not fit BRICKPROF_BUFFER_MB"), std::string::npos) << r.err;
  json t = load_only_output();
  bool warned = false;
  for (const json& w : t["diagnostics"]["warnings"])
    warned |= w.get<std::string>().find("aggregate tree") != std::string::npos;
  EXPECT_TRUE(warned) << t["diagnostics"]["warnings"];
}

// A 10^5-deep chain through every format, within 4 GB of address space:
// the folded export kept each entry's whole stack (a 20,000-deep trace
// took 895 MB; 10^5 ran out of memory, and the file was not written).
TEST_F(MemoryTest, DeepChainGoesThroughEveryFormatIn4GB) {
  auto env = agent_env();
  env["BRICKPROF_FORMATS"] = "json,tree,dot,chrome,folded";
  Result r = run({BRICKPROF_MEMORY_APP, "deep", "100000"}, env, false, uint64_t{4} << 30);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.err, "");                    // no "could not write" warning
  EXPECT_EQ(outputs(".json").size(), 2u);  // .json and .trace.json
  for (const char* ext : {".tree.txt", ".dot", ".trace.json", ".folded"})
    EXPECT_EQ(outputs(ext).size(), 1u) << ext;
  auto folded = outputs(".folded");
  ASSERT_EQ(folded.size(), 1u);
  std::ifstream in(folded[0]);
  std::string line, last;
  size_t deepest = 0;
  while (std::getline(in, line)) {
    deepest = std::max<size_t>(deepest, 1 + std::count(line.begin(), line.end(), ';'));
    last = line;
  }
  EXPECT_EQ(deepest, 128u);  // 127 frames, then one for the rest
  EXPECT_NE(last.find("[deeper frames]"), std::string::npos) << last.substr(0, 200);
  for (const auto& file : outputs(".json")) {
    if (file.string().find(".trace.json") != std::string::npos) continue;
    brickprof::Trace t = brickprof::read_trace_file(file.string());
    EXPECT_EQ(t.nodes.size(), 100000u + 2);  // the chain, the brick, main
  }
}

}  // namespace
