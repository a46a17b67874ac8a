// The first five minutes, as a new user types them: a program that records
// nothing (`brickprof run -- true`, a Python loop) and bricklayer on a CPU,
// then `brickprof report`. What they see must say what was recorded and why,
// add up to the wall time, show no GPU column without GPU work, explain its
// words, and not echo a name as where it ran.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "spawn.h"
#include "trace/model/recorded.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

const std::string kNothing(kNothingRecorded);

CliResult run_with_agent(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  return run_brickprof(args, {{"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}});
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The views a report can print, as `report --help` lists them (no file formats).
const std::vector<std::string> kTextViews = {
    "summary",  "tree",    "critical-path", "roofline",    "transfers", "gpu-idle",
    "launches", "analyze", "ranks",         "collectives", "imbalance", "rank-path"};

TEST(FirstScreen, AProgramThatRecordsNothingSaysSoEverywhere) {
  const std::string dir = fresh_dir("first_nothing");
  CliResult run = run_with_agent({"--output", dir + "/t", "--", "/bin/true"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // At exit: the files, then one line that says why they are empty.
  EXPECT_TRUE(has(run.err, "brickprof: wrote " + dir + "/t.json\n")) << run.err;
  const std::string last = "brickprof: " + kNothing + "\n";
  ASSERT_GE(run.err.size(), last.size());
  EXPECT_EQ(run.err.substr(run.err.size() - last.size()), last) << run.err;
  // The agent's tree file.
  EXPECT_EQ(read_file(dir + "/t.tree.txt"), "Execution Graph\n" + kNothing + "\n");

  // `report` with no view: the summary alone, which says it once.
  CliResult report = run_brickprof({"report", dir + "/t.json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err, "");
  const std::vector<std::string> lines = lines_of(report.out);
  ASSERT_GE(lines.size(), 3u) << report.out;
  EXPECT_TRUE(has(lines[0], ", nothing recorded")) << lines[0];
  EXPECT_EQ(lines[1], kNothing);
  EXPECT_EQ(lines[2].rfind("GPU: ", 0), 0u) << lines[2];
  for (const char* noise : {"0 nodes", "(no bricks)", "Category breakdown",
                            "cupti:", "zero-timestamp", "Execution Graph"})
    EXPECT_FALSE(has(report.out, noise)) << noise << "\n" << report.out;
  size_t said = 0;
  for (size_t at = report.out.find(kNothing); at != std::string::npos;
       at = report.out.find(kNothing, at + 1))
    ++said;
  EXPECT_EQ(said, 1u) << report.out;

  // Every view says the same one line.
  for (const std::string& view : kTextViews) {
    CliResult r = run_brickprof({"report", "--" + view, dir + "/t.json"});
    EXPECT_EQ(r.exit_code, 0) << view << ": " << r.err;
    EXPECT_TRUE(has(r.out, kNothing + "\n")) << view << ":\n" << r.out;
  }
  CliResult tree = run_brickprof({"report", "--tree", dir + "/t.json"});
  EXPECT_EQ(tree.out, "Execution Graph\n" + kNothing + "\n");
  // The facts stay in the JSON.
  CliResult js = run_brickprof({"report", "--json", "--summary", dir + "/t.json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json summary = json::parse(js.out)["summary"];
  EXPECT_EQ(summary["nothing_recorded"], kNothing);
  EXPECT_EQ(summary["nodes"], 0);
  EXPECT_EQ(summary["diagnostics"]["dropped_events"], 0);
}

// A capture setting that caught nothing: the program may have run scopes, so
// the line says the windows held nothing, not that nothing ran.
TEST(FirstScreen, ACaptureThatCaughtNothingSaysSo) {
  const std::string dir = fresh_dir("first_capture");
  CliResult run = run_with_agent(
      {"--capture", "scope:decode token", "--output", dir + "/t", "--", "/bin/true"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(has(run.err,
                  "brickprof: Nothing recorded: no capture window (scope:decode token) "
                  "held a scope, NVTX range or GPU work"))
      << run.err;
  EXPECT_FALSE(has(run.err, kNothing)) << run.err;
  CliResult report = run_brickprof({"report", "--tree", dir + "/t.json"});
  EXPECT_TRUE(has(report.out, "Nothing recorded: no capture window (scope 'decode token'"))
      << report.out;
  EXPECT_EQ(read_file(dir + "/t.tree.txt"), report.out);
}

TEST(FirstScreen, APythonLoopWithoutScopesRecordsNothing) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir = fresh_dir("first_python");
  CliResult run = run_with_agent(
      {"--output", dir + "/py", "--", "python3", "-c", "s = 0\nfor i in range(100000): s += i"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(has(run.err, "brickprof: " + kNothing + "\n")) << run.err;
  CliResult report = run_brickprof({"report", dir + "/py.json"});
  EXPECT_TRUE(has(report.out, kNothing)) << report.out;
}

// bricklayer's CPU backend: a program that marks its layers and bricks.
class CpuRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_dir("first_cpu");
    CliResult run = run_with_agent(
        {"--output",   dir_ + "/bl", "--formats",       "json,tree", "--",       BRICKLAYER,
         "--layers",   "1",          "--hidden",        "256",       "--heads",  "4",
         "--kv-heads", "2",          "--ffn",           "512",       "--vocab",  "128",
         "--context",  "32",         "--prompt",        "4",         "--tokens", "2",
         "--threads",  "2",          "--probe-seconds", "0.05"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_FALSE(has(run.err, kNothing)) << run.err;  // it recorded
    trace_ = dir_ + "/bl.json";
  }
  static std::string dir_, trace_;
};
std::string CpuRun::dir_, CpuRun::trace_;

TEST_F(CpuRun, NoGpuColumnAndOnePlainLineForTheGpu) {
  CliResult js = run_brickprof({"report", "--json", "--summary", trace_});
  const json summary = json::parse(js.out)["summary"];
  ASSERT_TRUE(summary["no_gpu"].is_string()) << summary;  // the CPU backend ran no GPU work
  CliResult r = run_brickprof({"report", "--summary", trace_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1], summary["no_gpu"].get<std::string>());  // right under the header
  EXPECT_TRUE(has(r.out, "\nBrick ")) << r.out;
  for (const std::string& line : lines) {
    if (line.rfind("Brick ", 0) == 0) {
      EXPECT_FALSE(has(line, "GPU")) << line;
    }
  }
  for (const char* noise :
       {"cupti:", "zero-timestamp records: 0", "dropped events: 0", "0 kernels"})
    EXPECT_FALSE(has(r.out, noise)) << noise << "\n" << r.out;
  EXPECT_TRUE(has(r.out, "\nDiagnostics: nothing dropped, scopes balanced\n")) << r.out;
}

TEST_F(CpuRun, TheTreeAddsUpToTheWallTime) {
  CliResult js = run_brickprof({"report", "--json", "--summary", "--tree", trace_});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json doc = json::parse(js.out);
  const int64_t wall = doc["summary"]["process"]["duration_ns"];
  const json& tree = doc["tree"];
  ASSERT_EQ(tree["threads"].size(), 1u);  // bricklayer scopes on its main thread
  int64_t top = 0;
  for (const json& e : tree["threads"][0]["children"]) top += e["total_ns"].get<int64_t>();
  const int64_t outside = tree["outside_ns"];
  EXPECT_GT(outside, 0);
  EXPECT_EQ(top + outside, wall);
  EXPECT_EQ(doc["summary"]["outside_scopes_ns"], outside);
  // In the text, the last top-level line; in the agent's file alike.
  CliResult text = run_brickprof({"report", "--tree", trace_});
  EXPECT_TRUE(has(text.out, "\n└── (outside every scope) ")) << text.out;
  EXPECT_EQ(read_file(dir_ + "/bl.tree.txt"), text.out);
  // Under a scope name it is a part of the run: no such line.
  CliResult under = run_brickprof({"report", "--tree", "--under", "decode token", trace_});
  EXPECT_FALSE(has(under.out, "outside every scope")) << under.out;
}

TEST_F(CpuRun, WordsAreExplainedWhereTheyFirstShow) {
  CliResult r = run_brickprof({"report", trace_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(lines_of(r.out)[0], " nodes (each a recorded scope")) << r.out;
  EXPECT_TRUE(has(r.out, "Per-brick timing (bricks: the steps of a layer the program marked):"))
      << r.out;
  EXPECT_TRUE(has(r.out, "(elem/s: the elements a brick declared, per second of its time)"))
      << r.out;
}

// "LmHead 8.33ms in LmHead": a slow operation is said to run where it ran,
// not inside itself.
TEST_F(CpuRun, SlowestOperationsDoNotEchoTheirName) {
  CliResult r = run_brickprof({"report", "--analyze", trace_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bool in_slowest = false;
  int checked = 0;
  for (const std::string& line : lines_of(r.out)) {
    if (line == "Slowest operations:") {
      in_slowest = true;
      continue;
    }
    if (!in_slowest || line.rfind("  ", 0) != 0) {
      in_slowest = false;
      continue;
    }
    const size_t in = line.find(" in ");
    if (in == std::string::npos) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    const std::string where = line.substr(in + 4);
    const std::string innermost =
        where.substr(where.rfind(" / ") == std::string::npos ? 0 : where.rfind(" / ") + 3);
    EXPECT_NE(innermost, name) << line;
    ++checked;
  }
  EXPECT_GT(checked, 0) << r.out;
}

// The CPU's roof is named for the instruction set it was measured with.
TEST_F(CpuRun, CpuPeaksAreNamedForTheInstructionSet) {
  CliResult r = run_brickprof({"report", "--roofline", trace_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t at = r.out.find("  CPU peak (");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
  const bool named = has(line, "(AVX-512, ") || has(line, "(AVX2, ") || has(line, "(NEON, ") ||
                     has(line, "(scalar, ");
  EXPECT_TRUE(named) << line;
  EXPECT_TRUE(has(line, "measured by the program): ")) << line;
}

}  // namespace
}  // namespace brickprof::test
