// `brickprof report` and the CLI's usage handling, run as a real process:
// views, --json, -o, and the exit code 2 + one stderr line for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

TEST(Report, DefaultIsSummaryThenTree) {
  CliResult r = run_brickprof({"report", data_path("tree_small.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  size_t summary = r.out.find("Per-brick timing (");
  size_t tree = r.out.find(read_file(data_path("tree_small.tree.txt")));
  ASSERT_NE(summary, std::string::npos) << r.out;
  ASSERT_NE(tree, std::string::npos) << r.out;
  EXPECT_LT(summary, tree);
  EXPECT_NE(r.out.find("Category breakdown:"), std::string::npos);
  // Nothing to report: one line says so (the counts are in --json).
  EXPECT_NE(r.out.find("\nDiagnostics: nothing dropped, scopes balanced\n"), std::string::npos);
  EXPECT_EQ(r.out.find("dropped events"), std::string::npos);
  EXPECT_NE(r.out.find("Slowest kernel: batched_q4k_gemv 100.0µs in QkvProjection"),
            std::string::npos);
}

TEST(Report, SummaryTableRows) {
  CliResult r = run_brickprof({"report", "--summary", data_path("tree_small.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // RmsNorm: 3 runs (50 + 50 + 40 µs), 12288 elements in 140 µs.
  EXPECT_NE(r.out.find("RmsNorm              3     46.7µs    140.0µs     12.3µs     87.77M\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Norm          140.0µs   31.8%        3\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Execution Graph"), std::string::npos);
}

TEST(Report, DiagnosticsAreShown) {
  std::string dir = fresh_dir("diag");
  std::string path = dir + "/lossy.json";
  std::string text = read_file(data_path("tree_small.json"));
  std::string from = "\"dropped_events\":0", to = "\"dropped_events\":17";
  text.replace(text.find(from), from.size(), to);
  from = "\"warnings\":[]";
  to = "\"warnings\":[\"CUPTI buffer overflow\"]";
  text.replace(text.find(from), from.size(), to);
  std::ofstream(path) << text;
  CliResult r = run_brickprof({"report", "--summary", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped events: 17"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: CUPTI buffer overflow"), std::string::npos) << r.out;
}

TEST(Report, ExportViewsMatchTheExporters) {
  CliResult tree = run_brickprof({"report", "--tree", data_path("tree_small.json")});
  EXPECT_EQ(tree.out, read_file(data_path("tree_small.tree.txt")));
  CliResult folded = run_brickprof({"report", "--folded", data_path("tree_small.json")});
  EXPECT_EQ(folded.out, read_file(data_path("tree_small.folded")));
  CliResult dot = run_brickprof({"report", "--dot", data_path("tree_small.json")});
  EXPECT_EQ(dot.out.rfind("digraph brickprof {", 0), 0u);
  CliResult chrome = run_brickprof({"report", "--chrome", data_path("tree_small.json")});
  EXPECT_EQ(nlohmann::json::parse(chrome.out)["displayTimeUnit"], "ns");
}

TEST(Report, JsonViewsForScripts) {
  CliResult r =
      run_brickprof({"report", "--json", "--summary", "--tree", data_path("tree_small.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["summary"]["bricks"][0]["name"], "RmsNorm");
  EXPECT_EQ(doc["summary"]["bricks"][0]["count"], 3);
  EXPECT_EQ(doc["summary"]["diagnostics"]["scope_balanced"], true);
  const auto& layer0 = doc["tree"]["threads"][0]["children"][0];
  EXPECT_EQ(doc["tree"]["threads"][0]["name"], "main");
  EXPECT_EQ(layer0["name"], "Layer 0");
  EXPECT_EQ(layer0["count"], 2);
  EXPECT_EQ(layer0["total_ns"], 1330000);
  EXPECT_EQ(layer0["children"][1]["children"][0]["count"], 2);  // batched_q4k_gemv
}

// --under: only the subtrees under scopes of that name (tree_small.json has
// two "Layer 0" roots, ten and two nodes, and a "Layer 1").
TEST(Report, UnderKeepsOnlyTheNamedSubtrees) {
  CliResult text =
      run_brickprof({"report", "--summary", "--under", "Layer 0", data_path("tree_small.json")});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("Under \"Layer 0\": 2 scopes, 12 of 15 nodes\n\n", 0), 0u) << text.out;
  CliResult json = run_brickprof(
      {"report", "--json", "--summary", "--under", "Layer 0", data_path("tree_small.json")});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["under"]["scopes"], 2);
  EXPECT_EQ(doc["under"]["nodes"], 12);
  EXPECT_EQ(doc["summary"]["bricks"][0]["name"], "RmsNorm");
  EXPECT_EQ(doc["summary"]["bricks"][0]["count"], 2);  // the third is under Layer 1
  // A file format alone gets no header line.
  CliResult folded =
      run_brickprof({"report", "--folded", "--under", "Layer 1", data_path("tree_small.json")});
  EXPECT_EQ(folded.out.rfind("Layer 1", 0), 0u) << folded.out;
}

TEST(Report, UnderANameThatIsNotThereIsBadInput) {
  CliResult r = run_brickprof(
      {"report", "--under", "decode token", data_path("tree_small.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brickprof: " + data_path("tree_small.json") +
                       ": no scope named 'decode token' (--under)\n");
}

TEST(Report, WritesToOutFile) {
  std::string dir = fresh_dir("out");
  CliResult r =
      run_brickprof({"report", "--tree", data_path("tree_small.json"), "-o", dir + "/t.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(read_file(dir + "/t.txt"), read_file(data_path("tree_small.tree.txt")));
}

struct BadInput {
  const char* name;
  std::string path;
  const char* problem;  // expected in the message
};

class ReportBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(ReportBadInput, ExitTwoWithOneLine) {
  const BadInput& b = GetParam();
  CliResult r = run_brickprof({"report", b.path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: " + b.path + ": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(b.problem), std::string::npos) << r.err;
  // Printable: a corrupt file's bytes quoted in the message are escaped.
  EXPECT_EQ(std::count_if(r.err.begin(), r.err.end() - 1,
                          [](unsigned char c) { return c < 0x20 || c == 0x7f; }),
            0)
      << r.err;
}

std::string truncated_copy() {
  std::string dir = fresh_dir("truncated");
  std::string text = read_file(data_path("tree_small.json"));
  std::string path = dir + "/truncated.json";
  std::ofstream(path) << text.substr(0, text.size() / 2);
  return path;
}

// A key with a unit separator and a vertical tab in it, where a string
// value should start.
std::string control_characters() {
  std::string path = fresh_dir("control") + "/control.json";
  std::ofstream(path) << "{\"s\x1fhe\va\",\"chrome/1\"}";
  return path;
}

std::string empty_file() {
  std::string path = fresh_dir("empty") + "/empty.json";
  std::ofstream{path};
  return path;
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ReportBadInput,
    ::testing::Values(
        BadInput{"truncated", truncated_copy(), "truncated"},
        BadInput{"empty", empty_file(), "empty"},
        BadInput{"control_characters", control_characters(), "top level.s\\x1fhe\\x0ba"},
        BadInput{"wrong_schema", data_path("bad_schema.json"), "schema"},
        BadInput{"no_schema", data_path("bad_no_schema.json"), "schema"},
        BadInput{"not_json", data_path("bad_not_json.txt"), ""},
        BadInput{"missing", data_path("does_not_exist.json"), "cannot open"},
        BadInput{"unknown_parent", data_path("bad_unknown_parent.json"), "unknown node id 7"},
        BadInput{"parent_cycle", data_path("bad_parent_cycle.json"), "cycle"},
        BadInput{"negative_time", data_path("bad_negative_time.json"), "negative time"},
        BadInput{"memory_scope", data_path("bad_memory_scope.json"),
                 "memory[1]: scope refers to unknown node id 7"}),
    [](const auto& info) { return std::string(info.param.name); });

struct Usage {
  const char* name;
  std::vector<std::string> args;
};

class UsageError : public ::testing::TestWithParam<Usage> {};

TEST_P(UsageError, ExitTwoWithOneLine) {
  CliResult r = run_brickprof(GetParam().args, {{"BRICKPROF_AGENT", FAKE_AGENT}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, UsageError,
    ::testing::Values(Usage{"unknown_command", {"frobnicate"}},
                      Usage{"report_without_file", {"report"}},
                      Usage{"report_unknown_flag", {"report", "--bogus", "x.json"}},
                      Usage{"report_json_of_dot", {"report", "--dot", "--json", "x.json"}},
                      Usage{"run_without_command", {"run"}},
                      Usage{"run_bad_format", {"run", "--formats", "json,pdf", "--", "true"}},
                      Usage{"run_bad_sync", {"run", "--sync", "sometimes", "--", "true"}},
                      Usage{"run_bad_buffer", {"run", "--buffer-mb", "0", "--", "true"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Help, EveryCommandHasHelp) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"run", "--help"},
                                        {"report", "--help"},
                                        {"diff", "--help"},
                                        {"merge", "--help"},
                                        {"ptx", "--help"}}) {
    CliResult r = run_brickprof(args);
    EXPECT_EQ(r.exit_code, 0) << args.size();
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace brickprof::test
