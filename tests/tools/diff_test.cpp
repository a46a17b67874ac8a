// `brickprof diff BASE NEW`: exit 0 without a regression beyond the
// threshold and the minimum time, 1 with one (the brick or kernel named), 2
// on bad input; kernels with the same name but other PTX code are flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// tree_small.json with the second QkvProjection 30 µs slower: its average
// goes from 150 µs to 165 µs (+10%); kernels are unchanged.
std::string slower_qkv() {
  return edited_copy(
      "tree_small.json", "slower_qkv",
      {{R"("start_ns":400000,"end_ns":500000)", R"("start_ns":400000,"end_ns":530000)"}});
}

TEST(Diff, IdenticalTracesPass) {
  const std::string t = data_path("tree_small.json");
  CliResult r = run_brickprof({"diff", t, t});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("0 regression(s)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("REGRESSION"), std::string::npos) << r.out;
}

TEST(Diff, SlowerBrickBeyondThresholdFails) {
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_qkv()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("1 regression(s)"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("REGRESSION brick  QkvProjection: avg 150.0µs -> 165.0µs (+10.0%, +30.0µs total)"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("RmsNorm"), std::string::npos) << r.out;  // unchanged: not listed
}

TEST(Diff, SlowerBrickBelowThresholdPasses) {
  CliResult r =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--threshold", "15"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Diff (threshold 15.0%, min time 1.0µs): 0 regression(s)"),
            std::string::npos)
      << r.out;
}

// The slower QkvProjection sits under "Layer 0": comparing only what ran
// under "Layer 1" finds nothing, under "Layer 0" finds it.
TEST(Diff, UnderComparesOnlyTheNamedSubtrees) {
  CliResult outside =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "Layer 1"});
  EXPECT_EQ(outside.exit_code, 0) << outside.err;
  EXPECT_EQ(outside.out.rfind("Under \"Layer 1\" in both traces\n\n", 0), 0u) << outside.out;
  EXPECT_EQ(outside.out.find("QkvProjection"), std::string::npos) << outside.out;
  CliResult inside =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "Layer 0"});
  EXPECT_EQ(inside.exit_code, 1) << inside.err;
  EXPECT_NE(inside.out.find("REGRESSION brick  QkvProjection"), std::string::npos) << inside.out;
  CliResult missing =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(lines(missing.err), 1u) << missing.err;
  EXPECT_NE(missing.err.find("no scope named 'nope' (--under)"), std::string::npos);
}

TEST(Diff, FasterIsNotARegression) {
  CliResult r = run_brickprof({"diff", slower_qkv(), data_path("tree_small.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("QkvProjection: avg 165.0µs -> 150.0µs (-9.1%, -30.0µs total)"),
            std::string::npos)
      << r.out;
}

TEST(Diff, SameKernelNameDifferentPtxIsFlagged) {
  // Same times, but rmsnorm_kernel was rebuilt: not a regression, but said.
  std::string base =
      edited_copy("tree_small.json", "ptx_a",
                  {{R"("correlation":1,)", R"("correlation":1,"ptx_hash":"0xa1",)"}});
  std::string next =
      edited_copy("tree_small.json", "ptx_b",
                  {{R"("correlation":1,)", R"("correlation":1,"ptx_hash":"0xb2",)"}});
  CliResult r = run_brickprof({"diff", base, next});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 kernel(s) with the same name but different code"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("kernel rmsnorm_kernel [0x00000000000000a1 -> 0x00000000000000b2]: avg "
                       "12.3µs -> 12.3µs (+0.0%, +0ns total)  same name, different code"),
            std::string::npos)
      << r.out;

  CliResult js = run_brickprof({"diff", "--json", base, next});
  EXPECT_EQ(js.exit_code, 0) << js.err;
  auto doc = nlohmann::json::parse(js.out);
  EXPECT_EQ(doc["code_changes"], 1);
  auto changed = std::find_if(doc["entries"].begin(), doc["entries"].end(),
                              [](const auto& e) { return e["code_changed"] == true; });
  ASSERT_NE(changed, doc["entries"].end());
  EXPECT_EQ((*changed)["name"], "rmsnorm_kernel");
  EXPECT_EQ((*changed)["base_ptx_hash"], "0x00000000000000a1");
  EXPECT_EQ((*changed)["ptx_hash"], "0x00000000000000b2");
}

TEST(Diff, ChangedCodeThatIsSlowerFailsWithJson) {
  // diff_new.json: RmsNorm +10%, gemv +20% with another PTX hash.
  CliResult r = run_brickprof({"diff", "--json", data_path("analyses/diff_base.json"),
                               data_path("analyses/diff_new.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["threshold_pct"], 5.0);
  EXPECT_EQ(doc["regressions"], 2);
  EXPECT_EQ(doc["entries"][0]["name"], "gemv");
  EXPECT_EQ(doc["entries"][0]["regression"], true);
  EXPECT_EQ(doc["entries"][0]["code_changed"], true);
  EXPECT_EQ(doc["entries"][1]["name"], "RmsNorm");
  EXPECT_EQ(doc["entries"][1]["change_pct"], 10.0);
}

// tree_small.json with its one attention kernel 750 ns -> 1.5 µs: +100%, but
// only 750 ns more in all.
std::string slower_tiny_kernel() {
  return edited_copy(
      "tree_small.json", "slower_tiny",
      {{R"("start_ns":480000,"end_ns":480750)", R"("start_ns":480000,"end_ns":481500)"}});
}

TEST(Diff, TinyChangeIsUnderTheDefaultMinimumTime) {
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_tiny_kernel()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Diff (threshold 5.0%, min time 1.0µs): 0 regression(s)"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("attention"), std::string::npos) << r.out;  // hidden...
  EXPECT_NE(r.out.find("1 change(s) of 5.0% or more not shown: 1.0µs or less in total "
                       "(--min-time)"),
            std::string::npos)
      << r.out;  // ...and counted
  // Without a floor it is the percentage alone.
  CliResult zero = run_brickprof(
      {"diff", data_path("tree_small.json"), slower_tiny_kernel(), "--min-time", "0"});
  EXPECT_EQ(zero.exit_code, 1) << zero.err;
  EXPECT_NE(zero.out.find("REGRESSION kernel attention<float, 128> [0x0000000000000000]: avg "
                          "750ns -> 1.5µs (+100.0%, +750ns total)"),
            std::string::npos)
      << zero.out;
}

TEST(Diff, MinTimeUnits) {
  // QkvProjection: +15 µs per call over 2 calls = 30 µs in all.
  const std::string base = data_path("tree_small.json"), next = slower_qkv();
  for (std::string hides : {"30us", "30µs", "30", "0.03ms", "30000ns", "3e-5s"}) {
    CliResult r = run_brickprof({"diff", base, next, "--min-time", hides});
    EXPECT_EQ(r.exit_code, 0) << hides << ": " << r.err;
    EXPECT_NE(r.out.find("1 change(s) of 5.0% or more not shown: 30.0µs or less"),
              std::string::npos)
        << hides << ": " << r.out;
  }
  for (std::string keeps : {"29.999us", "29", "0.029ms", "29999ns", "0"}) {
    CliResult r = run_brickprof({"diff", base, next, "--min-time=" + keeps});
    EXPECT_EQ(r.exit_code, 1) << keeps << ": " << r.err;
    EXPECT_NE(r.out.find("REGRESSION brick  QkvProjection"), std::string::npos) << r.out;
  }
}

TEST(Diff, MinTimeInJson) {
  CliResult r = run_brickprof(
      {"diff", "--json", "--min-time", "30us", data_path("tree_small.json"), slower_qkv()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["min_time_ns"], 30000);
  EXPECT_EQ(doc["regressions"], 0);
  EXPECT_EQ(doc["below_floor"], 1);
  ASSERT_EQ(doc["entries"][0]["name"], "QkvProjection");
  EXPECT_EQ(doc["entries"][0]["change_ns"], 30000);
  EXPECT_EQ(doc["entries"][0]["below_floor"], true);
  EXPECT_EQ(doc["entries"][0]["regression"], false);
  // The default is in the JSON too.
  auto plain = nlohmann::json::parse(
      run_brickprof({"diff", "--json", data_path("tree_small.json"), slower_qkv()}).out);
  EXPECT_EQ(plain["min_time_ns"], 1000);
  EXPECT_EQ(plain["below_floor"], 0);
}

TEST(Diff, BadInputNamesTheFile) {
  const std::string good = data_path("tree_small.json");
  for (const std::string& bad : {data_path("bad_schema.json"), data_path("does_not_exist.json")}) {
    for (const auto& args : {std::vector<std::string>{"diff", bad, good}, {"diff", good, bad}}) {
      CliResult r = run_brickprof(args);
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(lines(r.err), 1u) << r.err;
      EXPECT_EQ(r.err.rfind("brickprof: " + bad + ": ", 0), 0u) << r.err;
    }
  }
}

TEST(Diff, UsageErrors) {
  const std::string t = data_path("tree_small.json");
  for (const auto& args : {std::vector<std::string>{"diff", t},
                           {"diff", t, t, "--threshold", "-1"},
                           {"diff", t, t, "--threshold", "abc"},
                           {"diff", t, t, "--threshold", "nan"}}) {
    CliResult r = run_brickprof(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

TEST(Diff, BadMinTimeIsOneLine) {
  const std::string t = data_path("tree_small.json");
  for (std::string bad :
       {"abc", "-5us", "5 us", "5xs", "us", "", "nan", "inf", "1e30s", "5usx", "+5us"}) {
    CliResult r = run_brickprof({"diff", t, t, "--min-time=" + bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_EQ(lines(r.err), 1u) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--min-time"), std::string::npos) << bad << ": " << r.err;
  }
}

}  // namespace
}  // namespace brickprof::test
