// `brickprof report` with the analysis views (--critical-path, --roofline,
// --transfers, --gpu-idle, --launches, --analyze, --what-if NAME=K): each --json form parses and
// carries the same figures the text shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

std::string analyses(const std::string& name) { return data_path("analyses/" + name); }

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}
// The text views' one style (trace/model/format.h), for values away from a
// unit's edge: "750ns", "12.3µs", "1.23ms", "4.56s"; rates "12.34GB/s".
std::string dur(const json& ns) {
  double v = ns.get<double>();
  if (v < 1e3) return fixed(v, 0) + "ns";
  if (v < 1e6) return fixed(v / 1e3, 1) + "µs";
  if (v < 1e9) return fixed(v / 1e6, 2) + "ms";
  return fixed(v / 1e9, 2) + "s";
}
std::string bytes_rate(double per_s) {
  const char* prefixes[] = {"", "K", "M", "G", "T"};
  int p = 0;
  for (; p < 4 && per_s >= 999.995; ++p) per_s /= 1000;
  return fixed(per_s, p ? 2 : 0) + prefixes[p] + "B/s";
}

// Runs `report --VIEW FILE` as text and as --json; returns the text and the
// view's JSON value.
std::pair<std::string, json> text_and_json(const std::string& view, const std::string& file) {
  CliResult text = run_brickprof({"report", "--" + view, file});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  CliResult js = run_brickprof({"report", "--json", "--" + view, file});
  EXPECT_EQ(js.exit_code, 0) << js.err;
  EXPECT_EQ(js.err, "");
  json doc = json::parse(js.out);  // throws (fails the test) if it does not parse
  EXPECT_EQ(doc.size(), 1u);
  return {text.out, doc[view]};
}

// The text line that mentions `name`, or "".
std::string line_with(const std::string& text, const std::string& name) {
  size_t at = text.find(" " + name + " ");
  if (at == std::string::npos) return "";
  size_t begin = text.rfind('\n', at) + 1, end = text.find('\n', at);
  return text.substr(begin, end - begin);
}

TEST(ReportAnalyses, CriticalPathJsonMatchesText) {
  auto [text, cp] = text_and_json("critical-path", analyses("seed_threads.json"));
  EXPECT_EQ(text, read_file(analyses("seed_threads.critical_path.txt")));
  EXPECT_EQ(cp["length_ns"], 700'000);
  EXPECT_NE(text.find("Critical Path: " + dur(cp["length_ns"]) + " (" +
                      std::to_string(cp["steps"].size()) + " nodes)"),
            std::string::npos);
  for (const json& step : cp["steps"])
    EXPECT_NE(text.find(step["name"].get<std::string>() + " (" + dur(step["duration_ns"]) + ")"),
              std::string::npos)
        << step;
  ASSERT_EQ(cp["opportunities"].size(), 1u);
  const json& op = cp["opportunities"][0];
  EXPECT_NE(text.find(op["name"].get<std::string>() + " slack=" + dur(op["slack_ns"])),
            std::string::npos);
}

TEST(ReportAnalyses, RooflineJsonMatchesText) {
  auto [text, roof] = text_and_json("roofline", analyses("roofline.json"));
  ASSERT_EQ(roof["entries"].size(), 5u);
  for (const json& e : roof["entries"]) {
    std::string row = line_with(text, e["name"].get<std::string>());
    ASSERT_NE(row, "") << e["name"] << "\n" << text;
    EXPECT_NE(row.find(dur(e["time_ns"])), std::string::npos) << row;
    EXPECT_NE(row.find(fixed(100 * e["efficiency"].get<double>(), 1) + "%"), std::string::npos)
        << row;
    EXPECT_NE(row.find(e["bound"].get<std::string>()), std::string::npos) << row;
  }
}

TEST(ReportAnalyses, TransfersJsonMatchesText) {
  auto [text, tr] = text_and_json("transfers", analyses("transfers.json"));
  ASSERT_EQ(tr["totals"].size(), 2u);
  for (const json& t : tr["totals"]) {
    std::string head = t["direction"].get<std::string>() + ": " +
                       std::to_string(t["count"].get<int>()) + " copies";
    size_t at = text.find(head);
    ASSERT_NE(at, std::string::npos) << head << "\n" << text;
    std::string line = text.substr(at, text.find('\n', at) - at);
    EXPECT_NE(line.find(dur(t["time_ns"])), std::string::npos) << line;
    EXPECT_NE(line.find(bytes_rate(t["gbps"].get<double>() * 1e9)), std::string::npos) << line;
  }
  EXPECT_NE(text.find("Pageable-memory copies: " + std::to_string(tr["pageable_count"].get<int>())),
            std::string::npos);
  EXPECT_EQ(tr["slow"].size(), 3u);
  EXPECT_EQ(tr["ping_pongs"].size(), 1u);
}

TEST(ReportAnalyses, AnalyzeJsonMatchesText) {
  auto [text, an] = text_and_json("analyze", analyses("analyzer.json"));
  EXPECT_NE(text.find("Operations (" + std::to_string(an["ops"].size()) + " distinct, " +
                      dur(an["total_ns"]) + " total)"),
            std::string::npos)
      << text;
  for (const json& op : an["ops"]) {
    std::string row = line_with(text, op["name"].get<std::string>());
    size_t at = 0;  // the cells, in their columns' order
    for (const char* key : {"total_ns", "avg_ns", "min_ns", "median_ns", "p99_ns", "max_ns"}) {
      at = row.find(" " + dur(op[key]), at);
      ASSERT_NE(at, std::string::npos) << key << ": " << row;
      ++at;
    }
  }
  const json& slowest = an["slowest"][0];
  EXPECT_NE(text.find(slowest["name"].get<std::string>() + " " + dur(slowest["duration_ns"]) +
                      " in " + slowest["scope"].get<std::string>() + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("imbalance " + fixed(an["imbalance_ratio"].get<double>(), 2)),
            std::string::npos);
}

TEST(ReportAnalyses, GpuIdleJsonMatchesText) {
  // The trace of tests/analysis/analyses/gpu_idle_test.cpp, as a file.
  auto [text, gi] = text_and_json("gpu-idle", analyses("gpu_idle.json"));
  ASSERT_EQ(gi["devices"].size(), 1u);
  const json& d = gi["devices"][0];
  EXPECT_NE(text.find("busy " + dur(d["busy_ns"]) + " of " + dur(d["span_ns"])), std::string::npos)
      << text;
  EXPECT_NE(text.find("idle " + dur(d["idle_ns"]) + " in " + std::to_string(d["gaps"].get<int>()) +
                      " gaps"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("waiting for the host to issue work: " + dur(d["host_ns"])),
            std::string::npos)
      << text;
  for (const json& h : d["host_scopes"])
    EXPECT_NE(text.find(h["scope"].get<std::string>() + ": " + dur(h["ns"])), std::string::npos)
        << text;
  ASSERT_EQ(d["largest_gaps"].size(), 3u);
  const json& g = d["largest_gaps"][0];
  EXPECT_NE(
      text.find(dur(g["ns"]) + " at " + dur(g["start_ns"]) + " before " +
                g["next_name"].get<std::string>() + " (" + g["next_scope"].get<std::string>() +
                "): host " + dur(g["host_ns"]) + " in " + g["host_scope"].get<std::string>()),
      std::string::npos)
      << text;
  EXPECT_EQ(
      d["host_ns"].get<int64_t>() + d["issued_ns"].get<int64_t>() + d["unknown_ns"].get<int64_t>(),
      d["idle_ns"].get<int64_t>());
}

TEST(ReportAnalyses, GpuIdleUnderAScope) {
  // Under Sampling: its sync only, which is not GPU work.
  CliResult r =
      run_brickprof({"report", "--gpu-idle", "--under", "Sampling", analyses("gpu_idle.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU idle: no GPU work"), std::string::npos) << r.out;
  // Under GateProjection: its two kernels, one busy stretch.
  r = run_brickprof(
      {"report", "--gpu-idle", "--under", "GateProjection", analyses("gpu_idle.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("busy 30.0µs of 30.0µs"), std::string::npos) << r.out;
}

TEST(ReportAnalyses, LaunchesJsonMatchesText) {
  auto [text, ls] = text_and_json("launches", analyses("gpu_idle.json"));
  EXPECT_EQ(ls["kernels"], 5);
  EXPECT_NE(text.find("Kernel launches: 5 kernels, 5 launched one by one\n"), std::string::npos)
      << text;
  const json& call = ls["call"];
  EXPECT_NE(text.find("launch call on the host: median " + dur(call["median_ns"]) + ", p99 " +
                      dur(call["p99_ns"]) + ", max " + dur(call["max_ns"]) + "; " +
                      dur(call["total_ns"]) + " in all"),
            std::string::npos)
      << text;
  ASSERT_EQ(ls["by_kernel"].size(), 5u);
  for (const json& k : ls["by_kernel"]) {
    std::string row = line_with(text, k["name"].get<std::string>());
    size_t at = 0;  // the cells, in their columns' order
    for (std::string cell :
         {dur(k["gpu"]["total_ns"]), dur(k["gpu"]["median_ns"]), dur(k["call"]["median_ns"]),
          dur(k["delay"]["median_ns"]), dur(k["delay"]["p99_ns"]),
          std::to_string(k["shorter_than_call"].get<int>())}) {
      at = row.find(" " + cell, at);
      ASSERT_NE(at, std::string::npos) << cell << ": " << row;
      ++at;
    }
  }
}

TEST(ReportAnalyses, WhatIfTextAndJson) {
  const std::string file = analyses("seed_threads.json");
  CliResult text = run_brickprof({"report", file, "--what-if", "RmsNorm=2"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // --what-if alone replaces the default views.
  EXPECT_EQ(text.out,
            "What-if: RmsNorm 2x faster shortens the run by 50.0µs (7.1%): 700.0µs -> 650.0µs\n");
  CliResult js = run_brickprof(
      {"report", "--json", "--what-if", "RmsNorm=2", "--what-if", "AttentionScore=3x", file});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  json doc = json::parse(js.out);
  ASSERT_EQ(doc["what-if"].size(), 2u);
  const json& r = doc["what-if"][0];
  EXPECT_EQ(r["target"], "RmsNorm");
  EXPECT_EQ(r["factor"], 2.0);
  EXPECT_NE(
      text.out.find("by " + dur(r["saved_ns"]) + " (" + fixed(r["saved_pct"].get<double>(), 1) +
                    "%): " + dur(r["before_ns"]) + " -> " + dur(r["after_ns"])),
      std::string::npos);
  EXPECT_EQ(doc["what-if"][1]["saved_ns"], 0);  // off the path
}

// A name the trace does not have is bad input: exit 2, one line naming the
// closest names it has (case aside, then by spelling), nothing printed.
TEST(ReportAnalyses, UnknownNamesAreBadInputWithTheClosestNames) {
  const std::string file = analyses("seed_streams.json");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  for (const Case& c : std::vector<Case>{
           {{"--what-if", "rmsnorm=2"},
            ": no brick, scope or kernel named 'rmsnorm' (--what-if); closest: 'RmsNorm', "
            "'rmsnorm_kernel'"},
           {{"--what-if", "gate_gemm=2", "--critical-path"},
            ": no brick, scope or kernel named 'gate_gemm' (--what-if); closest: 'gate_gemv'"},
           {{"--under", "layer 0"}, ": no scope named 'layer 0' (--under); closest: 'Layer 0'"},
           {{"--under", "rmsnorm_kernel"},
            ": no scope named 'rmsnorm_kernel' (--under takes scopes: that is a kernel); "
            "closest: 'RmsNorm'"},
           {{"--under", "zzz"}, ": no scope named 'zzz' (--under)"},
       }) {
    for (bool json_form : {false, true}) {
      std::vector<std::string> args = {"report", file};
      args.insert(args.end(), c.args.begin(), c.args.end());
      if (json_form) args.push_back("--json");
      CliResult r = run_brickprof(args);
      EXPECT_EQ(r.exit_code, 2) << c.args[1];
      EXPECT_EQ(r.out, "") << c.args[1];
      EXPECT_EQ(r.err, "brickprof: " + file + c.err + "\n");
    }
  }
}

TEST(ReportAnalyses, EveryViewInOneJsonObject) {
  CliResult r = run_brickprof({"report", "--json", "--summary", "--tree", "--critical-path",
                               "--roofline", "--transfers", "--gpu-idle", "--launches", "--analyze",
                               "--what-if", "QkvProjection=4", analyses("seed_threads.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  for (const char* key : {"summary", "tree", "critical-path", "roofline", "transfers", "gpu-idle",
                          "launches", "analyze", "what-if"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["what-if"][0]["saved_ns"], 100'000);
}

TEST(ReportAnalyses, TextViewsAndWhatIfTogether) {
  CliResult r = run_brickprof(
      {"report", "--critical-path", "--what-if", "RmsNorm=2", analyses("seed_threads.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, read_file(analyses("seed_threads.critical_path.txt")) +
                       "\nWhat-if: RmsNorm 2x faster shortens the run by 50.0µs (7.1%): 700.0µs "
                       "-> 650.0µs\n");
}

// Bad input prints one line on stderr and nothing on stdout, also when
// views that need no dependency graph come first.
TEST(ReportAnalyses, DependencyCycleIsBadInput) {
  const std::string file = analyses("cycle.json");
  for (bool json_form : {false, true}) {
    for (std::vector<std::string> args :
         {std::vector<std::string>{"report", "--critical-path", file},
          {"report", "--summary", "--tree", "--critical-path", file},
          {"report", "--summary", "--what-if", "A=2", file}}) {
      if (json_form) args.push_back("--json");
      CliResult r = run_brickprof(args);
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.out, "") << args[2];
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.err.rfind("brickprof: " + file + ": dependency cycle", 0), 0u) << r.err;
    }
  }
}

class BadWhatIf : public ::testing::TestWithParam<const char*> {};

TEST_P(BadWhatIf, ExitTwoWithOneLineBeforeReading) {
  // The file does not exist: the spec is rejected before it is read.
  CliResult r = run_brickprof({"report", "--what-if", GetParam(), "missing.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("brickprof: report: --what-if ", 0), 0u) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Specs, BadWhatIf,
                         ::testing::Values("RmsNorm", "=2", "RmsNorm=0", "RmsNorm=-1",
                                           "RmsNorm=abc", "RmsNorm=", "RmsNorm=2y"));

}  // namespace
}  // namespace brickprof::test
