// bricklayer's backends compared with its scalar one output by output
// (`bricklayer --checksums`, `brickprof diff --outputs`), under the real
// agent: AVX2 and AVX-512 where this CPU has them, and the CUDA backend on
// the fake driver running its kernels on the CPU emulator. Each stays within
// the tolerance kernels/README.md gives it, which was chosen from the
// figures this test prints (the largest relative distance per brick). The
// fault switch is named exactly: a perturbed brick as the first divergence,
// a NaN as the first non-finite output. Two runs of one configuration are
// bit-identical output for output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/cpu_detect.h"
#include "spawn.h"

namespace brickprof::test {
namespace {

using nlohmann::json;

// Small, so the emulated CUDA run takes about a second: 2 layers (sizes
// multiples of 256 for Q4_K), a 4-token prefill and 4 decode steps.
const std::vector<std::string> kModel = {
    "--layers",  "2",   "--hidden",        "256", "--heads",    "4", "--kv-heads", "2",
    "--ffn",     "512", "--vocab",         "512", "--prompt",   "4", "--tokens",   "4",
    "--threads", "1",   "--probe-seconds", "0",   "--checksums"};

// Each backend's tolerance against scalar, by weights (kernels/README.md,
// "Output checksums"): the relative distance an output may move, over its
// norm. With Q4_K weights the AVX2, AVX-512 and CUDA GEMVs quantise their
// input to Q8_K and the scalar one does not (measured: up to 3.4e-2); with
// f32 weights only the order of the sums differs (up to 2e-6).
struct Weights {
  const char* name;
  double rtol;
};
constexpr Weights kWeights[] = {{"q4k", 5e-2}, {"f32", 1e-5}};

EnvChanges agent_env() { return {{"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}}; }

std::string record(const std::string& dir, const std::string& name,
                   const std::vector<std::string>& extra, EnvChanges env = agent_env()) {
  std::vector<std::string> args = {"run", "--formats", "json", "--output", dir + "/" + name,
                                   "--",  BRICKLAYER};
  args.insert(args.end(), kModel.begin(), kModel.end());
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = run_brickprof(args, env);
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  return dir + "/" + name + ".json";
}

// The scalar run every case compares with, recorded once per weights.
const std::string& scalar_trace(const std::string& weights = "q4k") {
  static std::map<std::string, std::string> paths;
  std::string& path = paths[weights];
  if (path.empty())
    path = record(fresh_dir("outputs_scalar_" + weights), "scalar",
                  {"--backend", "scalar", "--weights", weights});
  return path;
}

struct Diff {
  int exit_code = -1;
  json d;
};

Diff diff_outputs(const std::string& base, const std::string& next, double rtol) {
  CliResult r =
      run_brickprof({"diff", "--outputs", "--json", "--rtol", std::to_string(rtol), base, next});
  Diff out;
  out.exit_code = r.exit_code;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  if (r.exit_code == 0 || r.exit_code == 1) out.d = json::parse(r.out);
  return out;
}

// The brick an output was taken under: the last step of its scope path.
std::string brick_of(const json& c) {
  const std::string launched = c["launched"];
  const size_t slash = launched.rfind(" / ");
  return slash == std::string::npos ? launched : launched.substr(slash + 3);
}

// Prints the largest relative distance per brick (the figures in
// kernels/README.md) and checks that every output lined up, none beyond.
void expect_within(const std::string& backend, const Diff& r, double rtol) {
  ASSERT_FALSE(r.d.is_null());
  std::map<std::string, double> worst;
  for (const json& c : r.d["compared"]) {
    double& w = worst[brick_of(c)];
    w = std::max(w, c["rel"].get<double>());
  }
  std::printf("%s against scalar, largest rel per brick (rtol %.0e):\n", backend.c_str(), rtol);
  for (const auto& [brick, rel] : worst) std::printf("  %-18s %.3g\n", brick.c_str(), rel);
  EXPECT_EQ(r.exit_code, 0) << r.d["verdict_text"];
  EXPECT_EQ(r.d["beyond"], 0);
  EXPECT_TRUE(r.d["only_base"].empty()) << r.d["only_base"].dump();
  EXPECT_TRUE(r.d["only_new"].empty()) << r.d["only_new"].dump();
  // Every op of every step, and each step's sampled tokens: nothing missed.
  EXPECT_EQ(r.d["compared"].size(), r.d["base_outputs"].get<size_t>());
  EXPECT_GE(worst.size(), 12u) << "bricks with outputs";
}

void compare_simd(bricklayer::SimdLevel level, const char* name) {
  if (!bricklayer::simd_supported(level, bricklayer::detect_cpu()))
    GTEST_SKIP() << "this CPU has no " << name << ": its backend is not compared";
  for (const Weights& w : kWeights) {
    SCOPED_TRACE(w.name);
    const std::string dir = fresh_dir(std::string("outputs_") + name + "_" + w.name);
    const std::string next = record(dir, name, {"--backend", name, "--weights", w.name});
    expect_within(std::string(name) + " " + w.name,
                  diff_outputs(scalar_trace(w.name), next, w.rtol), w.rtol);
  }
}

TEST(BricklayerOutputs, Avx2IsWithinItsToleranceOfScalar) {
  compare_simd(bricklayer::SimdLevel::Avx2, "avx2");
}

TEST(BricklayerOutputs, Avx512IsWithinItsToleranceOfScalar) {
  compare_simd(bricklayer::SimdLevel::Avx512, "avx512");
}

TEST(BricklayerOutputs, EmulatedCudaIsWithinItsToleranceOfScalar) {
#ifdef EMULATED_KERNELS
  EnvChanges env = agent_env();
  env.emplace_back("LD_LIBRARY_PATH", FAKE_CUDA_DIR);
  env.emplace_back("FAKE_CUDA_KERNELS", EMULATED_KERNELS);
  for (const Weights& w : kWeights) {
    SCOPED_TRACE(w.name);
    const std::string dir = fresh_dir(std::string("outputs_cuda_") + w.name);
    const std::string next = record(dir, "cuda", {"--backend", "cuda", "--weights", w.name}, env);
    expect_within(std::string("cuda (emulated) ") + w.name,
                  diff_outputs(scalar_trace(w.name), next, w.rtol), w.rtol);
  }
#else
  GTEST_SKIP() << "no CUDA emulator in this build (CUDA headers or x86-64 missing)";
#endif
}

// --fault perturb:1:DownProjection: layer 1's DownProjection in the prefill
// is the first output beyond tolerance, and every output before it is
// bit-identical to the scalar run's (the scalar backend is deterministic).
TEST(BricklayerOutputs, APerturbedBrickIsTheFirstDivergence) {
  const std::string dir = fresh_dir("outputs_perturb");
  const std::string next =
      record(dir, "perturbed", {"--backend", "scalar", "--fault", "perturb:1:DownProjection"});
  const Diff r = diff_outputs(scalar_trace(), next, 1e-3);
  ASSERT_FALSE(r.d.is_null());
  EXPECT_EQ(r.exit_code, 1) << "a perturbed brick must fail the gate";
  const json* first = nullptr;
  size_t before = 0;
  for (const json& c : r.d["compared"]) {
    if (c["beyond"]) {
      first = &c;
      break;
    }
    EXPECT_TRUE(c["identical"].get<bool>()) << c["path"] << " changed before the fault";
    ++before;
  }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ((*first)["launched"], "prefill / Layer 1 / DownProjection");
  EXPECT_EQ((*first)["path"], "prefill #0 / Layer 1 #0 / DownProjection #0 : proj #0");
  EXPECT_NEAR((*first)["rel"].get<double>(), 1e-2, 2e-3) << "scaled by 1 + 1e-2";
  EXPECT_GT(before, 20u);

  CliResult text = run_brickprof({"diff", "--outputs", scalar_trace(), next, "--rtol", "1e-3"});
  EXPECT_NE(text.out.find("First divergence: prefill #0 / Layer 1 #0 / DownProjection #0 : proj"),
            std::string::npos)
      << text.out;
}

// --fault nan:0:AttentionScore: report --numerics names layer 0's
// AttentionScore in the prefill as the first output with a NaN.
TEST(BricklayerOutputs, ANanIsTheFirstNonFiniteOutput) {
  const std::string dir = fresh_dir("outputs_nan");
  const std::string next =
      record(dir, "nan", {"--backend", "scalar", "--fault", "nan:0:AttentionScore"});
  CliResult r = run_brickprof({"report", "--numerics", "--json", next});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json n = json::parse(r.out)["numerics"];
  ASSERT_TRUE(n["first_nonfinite"].is_object()) << r.out;
  EXPECT_EQ(n["first_nonfinite"]["launched"], "prefill / Layer 0 / AttentionScore");
  EXPECT_EQ(n["first_nonfinite"]["path"], "prefill #0 / Layer 0 #0 / AttentionScore #0 : attn #0");
  EXPECT_EQ(n["first_nonfinite"]["nan"], 1) << "one NaN written";

  const Diff d = diff_outputs(scalar_trace(), next, 1e-3);
  EXPECT_EQ(d.exit_code, 1);
  for (const json& c : d.d["compared"])
    if (c["beyond"]) {
      EXPECT_EQ(c["launched"], "prefill / Layer 0 / AttentionScore");
      break;
    }
}

// Two runs of the same configuration, on the best backend this CPU has and
// two threads: every output bit-identical.
TEST(BricklayerOutputs, SameConfigurationIsDeterministic) {
  const std::string dir = fresh_dir("outputs_twice");
  const std::vector<std::string> config = {"--threads", "2"};
  const std::string a = record(dir, "first", config), b = record(dir, "second", config);
  const Diff r = diff_outputs(a, b, 1e-3);
  ASSERT_FALSE(r.d.is_null());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GT(r.d["compared"].size(), 100u);
  EXPECT_EQ(r.d["identical"], r.d["compared"].size()) << "a run is not deterministic";
  EXPECT_TRUE(r.d["only_base"].empty() && r.d["only_new"].empty());
}

// A fault bricklayer cannot place, and output checks in graph mode, are
// refused with one line (exit 2).
TEST(BricklayerOutputs, BadFaultsAreRefused) {
  for (const std::string spec :
       {"perturb:9:DownProjection", "nan:0:Nothing", "scale:0:RmsNorm", "perturb:x:RmsNorm"}) {
    CliResult r =
        run_brickprof({"run", "--", BRICKLAYER, "--layers", "2", "--hidden", "256", "--heads", "4",
                       "--kv-heads", "2", "--ffn", "512", "--vocab", "512", "--fault", spec},
                      agent_env());
    EXPECT_EQ(r.exit_code, 2) << spec;
    EXPECT_NE(r.err.find("bricklayer: --fault"), std::string::npos) << spec << ": " << r.err;
  }
}

}  // namespace
}  // namespace brickprof::test
