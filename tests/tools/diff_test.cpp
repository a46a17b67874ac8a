// `brickprof diff BASE NEW`: exit 0 when the gate passes, 1 when it fails
// (a brick or kernel slower beyond the threshold, the spread of its calls
// and the floor; another program; a run that lost most of BASE), 2 on bad
// input; kernels with the same name but other PTX code are flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "spawn.h"

namespace brickprof::test {
namespace {

size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// tree_small.json with both QkvProjection calls 2.5 times as long (200 and
// 100 µs -> 500 and 250 µs): every NEW call is slower than every BASE call
// but the one pair 250/200, so the change is beyond the spread even for two
// calls; kernels are unchanged.
std::string slower_qkv() {
  return edited_copy(
      "tree_small.json", "slower_qkv",
      {{R"("start_ns":100000,"end_ns":300000)", R"("start_ns":100000,"end_ns":600000)"},
       {R"("start_ns":400000,"end_ns":500000)", R"("start_ns":400000,"end_ns":650000)"}});
}

// Only its second call 30 µs longer: +15% by the estimate, within the spread
// of two calls that differ by 2x.
std::string one_call_slower() {
  return edited_copy(
      "tree_small.json", "one_call_slower",
      {{R"("start_ns":400000,"end_ns":500000)", R"("start_ns":400000,"end_ns":530000)"}});
}

const std::string kQkvLine =
    "REGRESSION brick  QkvProjection: median 150.0µs -> 375.0µs (+150.0%; 99%: +25.0% to "
    "+400.0%), 2 calls, +450.0µs\n";

TEST(Diff, IdenticalTracesPass) {
  const std::string t = data_path("tree_small.json");
  CliResult r = run_brickprof({"diff", t, t});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(has(r.out, "Bricks (CPU time): 440.0µs -> 440.0µs (+0.0%), 5 -> 5 calls\n")) << r.out;
  EXPECT_TRUE(has(r.out, "PASS: no regression (5 brick(s) and kernel(s) compared)\n")) << r.out;
  EXPECT_FALSE(has(r.out, "REGRESSION")) << r.out;
}

TEST(Diff, SaysHowItJudges) {
  const std::string t = data_path("tree_small.json");
  CliResult r = run_brickprof({"diff", t, t});
  EXPECT_TRUE(has(r.out, "at 99% confidence from the spread of its calls")) << r.out;
  EXPECT_TRUE(has(r.out, "beyond the others' common move")) << r.out;
  EXPECT_TRUE(has(r.out, "adds more than 22.5µs (5.0% of BASE's typical brick time) for a brick, "
                         "8.2µs (5.0% of BASE's typical kernel time) for a kernel"))
      << r.out;
}

TEST(Diff, SlowerBrickBeyondItsSpreadFails) {
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_qkv()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(has(r.out, kQkvLine)) << r.out;
  EXPECT_TRUE(has(r.out, "Bricks (CPU time): 440.0µs -> 890.0µs (+102.3%), 5 -> 5 calls"))
      << r.out;
  EXPECT_TRUE(has(r.out, "\nFAIL: 1 regression(s): brick QkvProjection\n")) << r.out;
  EXPECT_FALSE(has(r.out, "RmsNorm")) << r.out;  // unchanged: not listed
}

TEST(Diff, AChangeWithinTheSpreadOfItsCallsPasses) {
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), one_call_slower()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "1 change(s) of 5.0% or more not counted: within the spread of their "
                         "calls\n"))
      << r.out;
}

TEST(Diff, ThresholdAsAPercentage) {
  // The interval's low end is +25%: a threshold above it passes, below it fails.
  for (std::string pct : {"30", "30%", "25.5%"}) {
    CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--threshold",
                                 pct});
    EXPECT_EQ(r.exit_code, 0) << pct << ": " << r.out << r.err;
  }
  for (std::string pct : {"5%", "5", "24.5%", "0"}) {
    CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(),
                                 "--threshold=" + pct});
    EXPECT_EQ(r.exit_code, 1) << pct << ": " << r.out << r.err;
  }
  CliResult r = run_brickprof(
      {"diff", data_path("tree_small.json"), slower_qkv(), "--threshold", "30%"});
  EXPECT_TRUE(has(r.out, "a regression is 30.0% slower")) << r.out;
}

// The slower QkvProjection sits under "Layer 0": comparing only what ran
// under "Layer 1" finds nothing, under "Layer 0" finds it.
TEST(Diff, UnderComparesOnlyTheNamedSubtrees) {
  CliResult outside =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "Layer 1"});
  EXPECT_EQ(outside.exit_code, 0) << outside.out;
  EXPECT_EQ(outside.out.rfind("Under \"Layer 1\" in both traces\n\n", 0), 0u) << outside.out;
  EXPECT_FALSE(has(outside.out, "QkvProjection")) << outside.out;
  CliResult inside =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "Layer 0"});
  EXPECT_EQ(inside.exit_code, 1) << inside.err;
  EXPECT_TRUE(has(inside.out, "REGRESSION brick  QkvProjection")) << inside.out;
  CliResult missing =
      run_brickprof({"diff", data_path("tree_small.json"), slower_qkv(), "--under", "nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(lines(missing.err), 1u) << missing.err;
  EXPECT_TRUE(has(missing.err, "no scope named 'nope' (--under)"));
}

TEST(Diff, FasterIsNotARegression) {
  CliResult r = run_brickprof({"diff", slower_qkv(), data_path("tree_small.json")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "           brick  QkvProjection: median 375.0µs -> 150.0µs (-60.0%; "
                         "99%: -80.0% to -20.0%), 2 calls, -450.0µs\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "PASS: no regression")) << r.out;
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
  EXPECT_TRUE(has(r.out, "1 kernel(s) with the same name but different code")) << r.out;
  EXPECT_TRUE(has(r.out, "kernel rmsnorm_kernel [0x00000000000000a1 -> 0x00000000000000b2]: "
                         "median 12.3µs -> 12.3µs (+0.0%; 99%: +0.0% to +0.0%), 1 call, +0ns  "
                         "same name, different code"))
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
  EXPECT_EQ(doc["verdict"], "fail");
  EXPECT_EQ(doc["threshold_pct"], 5.0);
  EXPECT_EQ(doc["confidence"], 0.99);
  EXPECT_EQ(doc["regressions"], 2);
  EXPECT_EQ(doc["entries"][0]["name"], "gemv");
  EXPECT_EQ(doc["entries"][0]["regression"], true);
  EXPECT_EQ(doc["entries"][0]["code_changed"], true);
  EXPECT_EQ(doc["entries"][1]["name"], "RmsNorm");
  EXPECT_EQ(doc["entries"][1]["change_pct"], 10.0);
  EXPECT_NEAR(doc["entries"][1]["relative_pct"].get<double>(), 10.0, 1e-9);
  EXPECT_EQ(doc["entries"][1]["added_ns"], 10000);
}

// What the HTML page and the view show is in the JSON as the text has it:
// the verdict line, each entry's status, whether the text lists it, and why.
TEST(Diff, JsonCarriesTheJudgementTheTextGives) {
  const std::vector<std::string> args = {"diff", data_path("cpu/bricklayer-scalar.json"),
                                         data_path("cpu/bricklayer-avx2.json"), "--quiet"};
  CliResult text = run_brickprof(args);
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  CliResult json = run_brickprof(json_args);
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_EQ(json.exit_code, 1) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  const std::string last_line =
      text.out.substr(text.out.rfind('\n', text.out.size() - 2) + 1, std::string::npos);
  EXPECT_EQ(doc["verdict_text"].get<std::string>() + "\n", last_line);
  EXPECT_TRUE(doc["bricks"]["note"].is_null());  // moved -93.5%: faster, no note
  size_t listed = 0;
  for (const auto& e : doc["entries"]) {
    const std::string name = e["name"], status = e["status"];
    EXPECT_EQ(status == "regression", e["regression"].get<bool>()) << name;
    EXPECT_EQ(status == "within spread", e["within_spread"].get<bool>()) << name;
    EXPECT_EQ(status == "below floor", e["below_floor"].get<bool>()) << name;
    EXPECT_FALSE(e["why"].get<std::string>().empty()) << name;
    // A listed entry is a line of the text, and only those are.
    EXPECT_EQ(e["listed"].get<bool>(), has(text.out, "brick  " + name + ": ")) << name;
    listed += e["listed"].get<bool>();
  }
  EXPECT_GT(listed, 0u);
  EXPECT_TRUE(has(doc["entries"][0]["why"].get<std::string>(),
                  "slower per call: its 99% interval starts at"))
      << doc["entries"][0]["why"];
}

// tree_small.json with its one attention kernel 750 ns -> 1.5 µs: +100%, but
// only 750 ns more in all, under 5% of the kernels' typical 163 µs.
std::string slower_tiny_kernel() {
  return edited_copy(
      "tree_small.json", "slower_tiny",
      {{R"("start_ns":480000,"end_ns":480750)", R"("start_ns":480000,"end_ns":481500)"}});
}

TEST(Diff, TinyChangeIsUnderTheDefaultFloor) {
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), slower_tiny_kernel()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(has(r.out, "attention")) << r.out;  // hidden...
  EXPECT_TRUE(has(r.out, "1 change(s) of 5.0% or more not counted: they add 22.5µs (kernels "
                         "8.2µs) or less (--min-time)"))
      << r.out;  // ...and counted
  // Without a floor it is the percentage alone.
  CliResult zero = run_brickprof(
      {"diff", data_path("tree_small.json"), slower_tiny_kernel(), "--min-time", "0"});
  EXPECT_EQ(zero.exit_code, 1) << zero.err;
  EXPECT_TRUE(has(zero.out, "REGRESSION kernel attention<float, 128> [0x0000000000000000]: "
                            "median 750ns -> 1.5µs (+100.0%; 99%: +100.0% to +100.0%), 1 call, "
                            "+750ns"))
      << zero.out;
}

TEST(Diff, MinTimeAsADurationOrAShare) {
  // QkvProjection adds 450 µs to NEW; BASE's bricks took 440 µs, typically
  // (median call x calls) 450 µs.
  const std::string base = data_path("tree_small.json"), next = slower_qkv();
  for (std::string hides : {"450us", "450µs", "450", "0.45ms", "450000ns", "4.5e-4s", "103%"}) {
    CliResult r = run_brickprof({"diff", base, next, "--min-time", hides});
    EXPECT_EQ(r.exit_code, 0) << hides << ": " << r.out << r.err;
    EXPECT_TRUE(has(r.out, "1 change(s) of 5.0% or more not counted: they add ")) << hides << r.out;
  }
  for (std::string keeps : {"449.999us", "449", "0.449ms", "449999ns", "0", "99.9%", "1%"}) {
    CliResult r = run_brickprof({"diff", base, next, "--min-time=" + keeps});
    EXPECT_EQ(r.exit_code, 1) << keeps << ": " << r.err;
    EXPECT_TRUE(has(r.out, "REGRESSION brick  QkvProjection")) << r.out;
  }
}

TEST(Diff, MinTimeInJson) {
  CliResult r = run_brickprof(
      {"diff", "--json", "--min-time", "450us", data_path("tree_small.json"), slower_qkv()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["min_time_ns"], 450000);
  EXPECT_TRUE(doc["min_time_pct"].is_null());
  EXPECT_EQ(doc["regressions"], 0);
  EXPECT_EQ(doc["below_floor"], 1);
  ASSERT_EQ(doc["entries"][0]["name"], "QkvProjection");
  EXPECT_EQ(doc["entries"][0]["added_ns"], 450000);
  EXPECT_EQ(doc["entries"][0]["below_floor"], true);
  EXPECT_EQ(doc["entries"][0]["regression"], false);
  // The default: 5% of BASE's typical time of each kind (median call x calls).
  auto plain = nlohmann::json::parse(
      run_brickprof({"diff", "--json", data_path("tree_small.json"), slower_qkv()}).out);
  EXPECT_EQ(plain["min_time_pct"], 5.0);
  EXPECT_EQ(plain["bricks"]["base_typical_ns"], 450000);
  EXPECT_EQ(plain["bricks"]["floor_ns"], 22500);
  EXPECT_EQ(plain["kernels"]["floor_ns"], 8153);
  EXPECT_EQ(plain["bricks"]["base_ns"], 440000);
  EXPECT_EQ(plain["bricks"]["new_ns"], 890000);
}

TEST(Diff, AnotherProgramFailsWithALineSayingWhy) {
  const std::string other = edited_copy("tree_small.json", "other_program",
                                        {{R"("program":"bricklayer")", R"("program":"ls")"}});
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), other});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(has(r.out, "\nFAIL: BASE is a run of bricklayer, NEW of ls: not the same program "
                         "(--any-program compares them anyway)\n"))
      << r.out;
  EXPECT_EQ(run_brickprof({"diff", data_path("tree_small.json"), other, "--any-program"}).exit_code,
            0);
}

TEST(Diff, ARunThatLostMostOfBaseFails) {
  // NEW recorded QkvProjection as plain scopes: 300 of BASE's 440 µs of bricks are gone.
  const std::string lost = edited_copy(
      "tree_small.json", "lost",
      {{R"("kind":"brick","name":"QkvProjection")", R"("kind":"scope","name":"QkvProjection")"},
       {R"("kind":"brick","name":"QkvProjection")", R"("kind":"scope","name":"QkvProjection")"}});
  CliResult r = run_brickprof({"diff", data_path("tree_small.json"), lost});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(has(r.out, "           brick  QkvProjection: gone (was 2 calls, median 150.0µs)\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "\nFAIL: NEW lacks 1 of the 2 bricks of BASE, 68.2% of its brick time: "
                         "not the same work (another input, a failed run, or less recorded)\n"))
      << r.out;
}

TEST(Diff, OutputToAFileSaysWhere) {
  const std::string dir = fresh_dir("diff_output");
  CliResult r = run_brickprof(
      {"diff", data_path("tree_small.json"), slower_qkv(), "-o", dir + "/diff.txt"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/diff.txt\n");
  EXPECT_TRUE(has(read_file(dir + "/diff.txt"), kQkvLine));
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
                           {"diff", t, t, "--threshold", "5%%"},
                           {"diff", t, t, "--threshold", "%"},
                           {"diff", t, t, "--threshold", "nan"},
                           {"diff", t, t, "--total-threshold", "x"}}) {
    CliResult r = run_brickprof(args);
    EXPECT_EQ(r.exit_code, 2) << args.back();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(lines(r.err), 1u) << r.err;
  }
}

TEST(Diff, BadMinTimeIsOneLine) {
  const std::string t = data_path("tree_small.json");
  for (std::string bad : {"abc", "-5us", "5 us", "5xs", "us", "", "nan", "inf", "1e30s", "5usx",
                          "+5us", "-1%", "x%", "%"}) {
    CliResult r = run_brickprof({"diff", t, t, "--min-time=" + bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_EQ(lines(r.err), 1u) << bad << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--min-time")) << bad << ": " << r.err;
  }
}

// --outputs: the checksums of tests/data/outputs/ (hand-made digests;
// changed.json scales the second gemv's output by 1.01).
TEST(DiffOutputs, NamesTheFirstDivergenceAndGatesOnIt) {
  const std::string base = data_path("outputs/base.json");
  CliResult r = run_brickprof({"diff", "--outputs", base, data_path("outputs/changed.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "First divergence: Layer 0 #0 / DownProjection #0 / gemv #1 : out #0\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "    rel 0.01  cos 1.000000")) << r.out;
  EXPECT_TRUE(has(r.out, "FAIL: 1 of 4 outputs differ beyond tolerance\n")) << r.out;
  // A looser tolerance passes it; --json says the same.
  r = run_brickprof({"diff", "--outputs", "--rtol", "0.02", base, data_path("outputs/changed.json")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  r = run_brickprof({"diff", "--outputs", "--json", base, data_path("outputs/changed.json")});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["beyond"], 1);
  EXPECT_EQ(j["identical"], 3);
  // The same run twice: deterministic.
  r = run_brickprof({"diff", "--outputs", base, base});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(has(r.out, "bit-identical: deterministic")) << r.out;
  // Runs without checksums have nothing to compare: that fails, it does not pass.
  const std::string plain = data_path("tree_small.json");
  r = run_brickprof({"diff", "--outputs", plain, plain});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(has(r.out, "FAIL: no output is in both runs")) << r.out;
  r = run_brickprof({"diff", "--outputs", "--rtol", "-1", base, base});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace brickprof::test
