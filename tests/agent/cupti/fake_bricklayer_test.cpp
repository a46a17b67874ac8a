// bricklayer's real CUDA backend (driver API, embedded PTX, a created
// stream, memsets, stream capture and graph replay) run on the fake driver
// with the agent loaded. The fake GPU computes nothing (except in the last
// test, where it runs the kernels on the CPU emulator), but every call,
// callback and activity record follows the real driver's order, so this
// checks what scripts/gpu-check checks on a GPU, minus real timings:
// eager launches land under their bricks step by step, and a replayed
// graph's kernels land under the bricks that were open when it was captured.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "agent/ptx/hash.h"
#include "trace/model/hash_text.h"
#include "trace/json/trace_json.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/read_file.h"
#include "tests/support/trace_query.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;
using namespace brickprof::test::trace_query;

namespace {

constexpr int kTokens = 4;
const std::vector<std::string> kSmallModel = {
    "--backend", "cuda", "--layers",   "2", "--hidden", "256",
    "--heads",   "4",    "--kv-heads", "2", "--ffn",    "512",
    "--vocab",   "512",  "--prompt",   "4", "--tokens", std::to_string(kTokens)};

// (brick name, kernel name) of every kernel of one step, sorted.
using StepPlan = std::vector<std::pair<std::string, std::string>>;

// The lines of `out` that start with one of `prefixes`.
std::string lines_starting(const std::string& out, std::initializer_list<const char*> prefixes) {
  std::istringstream in(out);
  std::string line, kept;
  while (std::getline(in, line))
    for (const char* p : prefixes)
      if (line.rfind(p, 0) == 0) {
        kept += line + "\n";
        break;
      }
  return kept;
}

// The lines of bricklayer's output that hold no timings.
std::string stable_lines(const std::string& out) {
  return lines_starting(out, {"launches per token", "generated", "ops per decode step"});
}

class FakeBricklayerTest : public TempDirTest {
 protected:
  // Runs bricklayer in `mode` without and with the agent; returns the trace.
  json run_bricklayer(const std::string& mode, std::string* out,
                      const std::map<std::string, std::string>& agent_settings = {}) {
    std::vector<std::string> argv = {BRICKLAYER};
    argv.insert(argv.end(), kSmallModel.begin(), kSmallModel.end());
    argv.insert(argv.end(), {"--mode", mode});
    std::map<std::string, std::string> env = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
    Result plain = run(argv, env);
    EXPECT_EQ(plain.exit_code(), 0) << plain.err;
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / ("bl-" + mode)).string();
    env["BRICKPROF_FORMATS"] = "json";
    env.insert(agent_settings.begin(), agent_settings.end());
    Result traced = run(argv, env);
    EXPECT_EQ(traced.exit_code(), 0) << traced.err;
    EXPECT_EQ(traced.err, plain.err);
    EXPECT_EQ(stable_lines(traced.out), stable_lines(plain.out));
    *out = traced.out;
    fs::path file = dir_ / ("bl-" + mode + ".json");
    EXPECT_NO_THROW(brickprof::read_trace_file(file.string()));
    std::ifstream in(file);
    return json::parse(in);
  }
};

// The "decode token" scopes, in time order.
std::vector<const json*> decode_steps(const json& t) {
  std::vector<const json*> steps;
  for (const json* s : of_kind(t, "scope"))
    if ((*s)["name"] == "decode token") steps.push_back(s);
  std::sort(steps.begin(), steps.end(),
            [](const json* a, const json* b) { return (*a)["start_ns"] < (*b)["start_ns"]; });
  return steps;
}

const json* step_of(const json& t, const json& kernel, const std::vector<const json*>& steps) {
  const json* s = ancestor_named(t, kernel, "decode token");
  return s != nullptr && std::find(steps.begin(), steps.end(), s) != steps.end() ? s : nullptr;
}

// What every trace of bricklayer shows, in either mode: each kernel under a
// brick (or the bandwidth probe's scope) with a launches edge, the one
// embedded PTX module hashed as built, a clean capture.
void expect_attributed(const json& t) {
  const json& d = t["diagnostics"];
  EXPECT_EQ(d["cupti"].get<std::string>().rfind("active (", 0), 0u) << d["cupti"];
  EXPECT_EQ(d["dropped_activity_records"], 0);
  EXPECT_EQ(d["unbalanced_pops"], 0);
  EXPECT_EQ(d["warnings"], json::array());

  ASSERT_EQ(t["ptx"].size(), 1u);
  const json& module = t["ptx"][0];
  EXPECT_EQ(module["kind"], "ptx");
  EXPECT_EQ(
      module["hash"],
      brickprof::hash_text(brickprof::agent::fnv1a64(brickprof::test::read_file(BRICKLAYER_PTX))));
  std::set<std::string> in_module = module["kernels"].get<std::set<std::string>>();

  auto kernels = of_kind(t, "kernel");
  ASSERT_FALSE(kernels.empty());
  for (const json* k : kernels) {
    ASSERT_FALSE((*k)["parent"].is_null()) << k->dump();
    const json& parent = parent_of(t, *k);
    if ((*k)["name"] == "bl_read_sum") {
      EXPECT_EQ(parent["name"], "bandwidth probe");
    } else {
      EXPECT_EQ(parent["kind"], "brick") << k->dump();
    }
    EXPECT_TRUE(has_edge(t, parent["id"], (*k)["id"], "launches")) << k->dump();
    EXPECT_EQ((*k)["ptx_hash"], module["hash"]);
    EXPECT_EQ(in_module.count((*k)["name"]), 1u) << k->dump();
    EXPECT_EQ(duration(*k), static_cast<int64_t>(blocks(*k) * 1000)) << k->dump();
  }
  // Device buffers are zeroed with cuMemsetD8; each memset names its target.
  auto memsets = of_kind(t, "memset");
  ASSERT_FALSE(memsets.empty());
  for (const json* m : memsets) {
    EXPECT_GT((*m)["bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ((*m)["dst_kind"], "device");
    EXPECT_GT((*m)["dst_addr"].get<uint64_t>(), 0u);
  }
}

// Eager: every decode step launches the same kernels under the same bricks.
StepPlan eager_step_plan(const json& t) {
  auto steps = decode_steps(t);
  EXPECT_EQ(steps.size(), static_cast<size_t>(kTokens));
  std::map<const json*, StepPlan> plans;
  for (const json* k : of_kind(t, "kernel"))
    if (const json* s = step_of(t, *k, steps)) {
      EXPECT_EQ(graph_node(*k), 0u) << k->dump();
      plans[s].emplace_back(parent_of(t, *k)["name"], (*k)["name"]);
    }
  for (auto& [step, plan] : plans) std::sort(plan.begin(), plan.end());
  EXPECT_EQ(plans.size(), static_cast<size_t>(kTokens));
  for (auto& [step, plan] : plans) EXPECT_EQ(plan, plans.begin()->second);
  return plans.empty() ? StepPlan{} : plans.begin()->second;
}

// The whole analysis and export path on a CUDA-shaped trace: every view of
// `brickprof report`, text and JSON, and every file format.
void expect_reports(const fs::path& trace) {
  for (const auto& flags : report_views()) {
    std::vector<std::string> argv = {BRICKPROF_BIN, "report", trace.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    Result r = run(argv, {});
    EXPECT_EQ(r.exit_code(), 0) << flags[0] << ": " << r.err;
    EXPECT_EQ(r.err, "") << flags[0];
    EXPECT_NE(r.out.find("bl_gemv_q4k"), std::string::npos) << flags[0];
  }
}

TEST_F(FakeBricklayerTest, EagerLaunchesLandUnderTheirBricksEveryStep) {
  std::string out;
  json t = run_bricklayer("eager", &out);
  expect_attributed(t);
  StepPlan plan = eager_step_plan(t);
  // bricklayer counts its own launches; the trace must hold every one.
  EXPECT_NE(out.find("launches per token: " + std::to_string(plan.size()) + " cuLaunchKernel"),
            std::string::npos)
      << out;
  EXPECT_GT(plan.size(), 20u);
  expect_reports(dir_ / "bl-eager.json");
}

TEST_F(FakeBricklayerTest, GraphReplaysLandUnderTheBricksThatCapturedThem) {
  std::string eager_out, graph_out;
  StepPlan eager = eager_step_plan(run_bricklayer("eager", &eager_out));
  json t = run_bricklayer("graph", &graph_out);
  expect_attributed(t);
  EXPECT_NE(graph_out.find("launches per token: 1 cuGraphLaunch"), std::string::npos) << graph_out;

  auto steps = decode_steps(t);
  ASSERT_EQ(steps.size(), static_cast<size_t>(kTokens));
  const json& capture_step = *steps.front();
  // Each graph node ran once per token, always under the same brick, which
  // was open in the first (captured) step.
  std::map<uint64_t, std::vector<const json*>> by_node;
  for (const json* k : of_kind(t, "kernel"))
    if (graph_node(*k) != 0) by_node[graph_node(*k)].push_back(k);
  ASSERT_EQ(by_node.size(), eager.size());
  StepPlan replay;
  for (auto& [node, runs] : by_node) {
    ASSERT_EQ(runs.size(), static_cast<size_t>(kTokens)) << "graph node " << node;
    const json& brick = parent_of(t, *runs[0]);
    EXPECT_EQ(brick["kind"], "brick");
    EXPECT_EQ(step_of(t, *runs[0], steps), &capture_step) << runs[0]->dump();
    for (const json* k : runs) EXPECT_EQ((*k)["parent"], runs[0]->at("parent"));
    replay.emplace_back(brick["name"], (*runs[0])["name"]);
  }
  std::sort(replay.begin(), replay.end());
  // Graph replay attributes exactly as eager launches do.
  EXPECT_EQ(replay, eager);
  expect_reports(dir_ / "bl-graph.json");
  // And no kernel ran outside the replays during decode.
  for (const json* k : of_kind(t, "kernel")) {
    if (graph_node(*k) == 0) {
      EXPECT_EQ(step_of(t, *k, steps), nullptr) << k->dump();
    }
  }
}

// BRICKPROF_CUDA_GRAPH_TRACE=graph: each replay is one "CUDA graph N" node
// under the decode step that launched it, spanning the replay's kernels;
// no kernel of a replayed node appears, the prefill's eager ones do.
TEST_F(FakeBricklayerTest, WholeGraphTraceGivesOneNodePerReplay) {
  std::string out;
  json t = run_bricklayer("graph", &out, {{"BRICKPROF_CUDA_GRAPH_TRACE", "graph"}});
  EXPECT_NE(t["diagnostics"]["cupti"].get<std::string>().find("CUDA graphs traced whole"),
            std::string::npos)
      << t["diagnostics"]["cupti"];
  const auto steps = decode_steps(t);
  ASSERT_EQ(steps.size(), static_cast<size_t>(kTokens));
  std::set<const json*> replayed_in;
  int64_t replay_ns = 0;
  for (const json* k : of_kind(t, "kernel")) {
    EXPECT_EQ(graph_node(*k), 0u) << k->dump();
    if ((*k)["name"].get<std::string>().rfind("CUDA graph ", 0) != 0) {
      EXPECT_EQ(step_of(t, *k, steps), nullptr) << "a kernel of a replay: " << k->dump();
      continue;
    }
    const json* step = step_of(t, *k, steps);
    ASSERT_NE(step, nullptr) << k->dump();
    EXPECT_EQ(parent_of(t, *k)["name"], "decode token");
    EXPECT_GT(k->value("graph_id", 0u), 0u) << k->dump();
    EXPECT_TRUE(replayed_in.insert(step).second) << "two replays in one step";
    if (replay_ns == 0) replay_ns = duration(*k);
    EXPECT_EQ(duration(*k), replay_ns) << "every replay runs the same kernels";
  }
  EXPECT_EQ(replayed_in.size(), static_cast<size_t>(kTokens));
  EXPECT_GT(replay_ns, 0);
}

// Tokens per step ride on gridDim.y (at most 65535): a larger batch x prompt
// is refused up front with one line and exit 2, not a failed launch.
TEST_F(FakeBricklayerTest, TooManyTokensPerStepIsRefusedClearly) {
  Result r =
      run({BRICKLAYER, "--backend",  "cuda", "--layers", "1",   "--hidden",  "256", "--heads",
           "4",        "--kv-heads", "2",    "--ffn",    "512", "--vocab",   "512", "--batch",
           "64",       "--prompt",   "1100", "--tokens", "0",   "--context", "1200"},
          {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}});
  EXPECT_EQ(r.exit_code(), 2) << r.err;
  EXPECT_NE(r.err.find("70400 tokens per step"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// BRICKPROF_SYNC=per-layer synchronises at every layer's end, but a context
// sync while a stream is captured would invalidate the program's capture
// (cuStreamEndCapture fails; the fake driver enforces this as CUDA does).
// The agent must skip those syncs, say so, and leave the program's output
// alone; the layers outside the capture are still synchronised.
TEST_F(FakeBricklayerTest, PerLayerSyncLeavesGraphCaptureIntact) {
  std::string out;
  json t = run_bricklayer("graph", &out, {{"BRICKPROF_SYNC", "per-layer"}});
  EXPECT_NE(out.find("launches per token: 1 cuGraphLaunch"), std::string::npos) << out;
  bool said = false;
  for (const json& w : t["diagnostics"]["warnings"])
    said |=
        w.get<std::string>().find("skipped while a stream was being captured") != std::string::npos;
  EXPECT_TRUE(said) << t["diagnostics"].dump();
  size_t replayed = 0, layer_syncs = 0;
  for (const json* k : of_kind(t, "kernel")) replayed += graph_node(*k) != 0;
  for (const json* s : of_kind(t, "sync"))
    layer_syncs += !(*s)["parent"].is_null() && parent_of(t, *s)["kind"] == "layer";
  EXPECT_EQ(replayed % kTokens, 0u);
  EXPECT_GT(replayed, 0u);
  EXPECT_GT(layer_syncs, 0u);  // prefill's layers were synchronised
}

// The lines naming the generated tokens.
std::string generated_lines(const std::string& out) { return lines_starting(out, {"generated"}); }

// The fakes, with every launch run on the CPU emulator.
const std::map<std::string, std::string> kExecuting = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR},
                                                       {"FAKE_CUDA_KERNELS", EMULATED_KERNELS}};

// The tokens bricklayer generates with `flags`; it must succeed.
std::string generated_by(const std::vector<std::string>& flags,
                         const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {BRICKLAYER};
  argv.insert(argv.end(), flags.begin(), flags.end());
  Result r = run(argv, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  return generated_lines(r.out);
}

// With the fake driver running every launch on the CPU emulator
// (tests/fakes/cuda_emulator), bricklayer's CUDA backend computes: eager and
// graph replay generate the tokens the scalar backend generates, and the
// agent loaded into it changes nothing of its output.
TEST_F(FakeBricklayerTest, ExecutedCudaBackendGeneratesTheScalarBackendsTokens) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  std::vector<std::string> model(kSmallModel.begin() + 2, kSmallModel.end());  // no --backend
  model.insert(model.end(), {"--batch", "2", "--probe-seconds", "0"});
  auto bricklayer = [&](const std::vector<std::string>& flags,
                        const std::map<std::string, std::string>& env) {
    std::vector<std::string> all = model;
    all.insert(all.end(), flags.begin(), flags.end());
    return generated_by(all, env);
  };
  const std::string scalar = bricklayer({"--backend", "scalar"}, {});
  ASSERT_NE(scalar, "");
  std::map<std::string, std::string> profiled = kExecuting;
  profiled["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
  profiled["BRICKPROF_FORMATS"] = "json";
  profiled["BRICKPROF_OUTPUT"] = (dir_ / "executed").string();
  EXPECT_EQ(bricklayer({"--backend", "cuda", "--mode", "eager"}, kExecuting), scalar);
  EXPECT_EQ(bricklayer({"--backend", "cuda", "--mode", "graph"}, kExecuting), scalar);
  EXPECT_EQ(bricklayer({"--backend", "cuda", "--mode", "graph"}, profiled), scalar);
  std::ifstream in(dir_ / "executed.json");
  const json t = json::parse(in);
  EXPECT_EQ(t["diagnostics"]["cupti"].get<std::string>().rfind("active (", 0), 0u);
  EXPECT_FALSE(of_kind(t, "kernel").empty());
}

// Checksum mode on the executed CUDA backend (eager), by both paths: the
// host-copy path (BRICKPROF_CHECKSUMS=host) and the device path (=1, the
// agent's reduction kernels run by the emulator from the second library in
// FAKE_CUDA_KERNELS). Every kernel's written buffers are digested on its
// node; the device path's digests are the host-copy path's bit for bit;
// bricklayer's output and its own brick digests (--checksums) are those of
// a run without checksum mode (the agent never changes the host); two runs
// line up kernel by kernel, bit-identical (diff --outputs passes with every
// output identical). The second run is a host-copy one: the device path
// runs on the emulator as CPU code, ten times the host-copy path's time.
TEST_F(FakeBricklayerTest, ChecksumModeLeavesTheProgramAloneAndDigestsEveryKernel) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  // One layer, one token: the emulator digests ~10M elements per run.
  const std::vector<std::string> argv = {
      BRICKLAYER, "--backend", "cuda", "--layers", "1",      "--hidden",        "256",
      "--heads",  "4",         "--kv-heads", "2", "--ffn",  "512",          "--vocab",
      "512",      "--prompt",  "2",          "--tokens", "1", "--mode",    "eager",
      "--probe-seconds", "0", "--checksums"};
  auto traced = [&](const std::string& tag, const char* checksums) {
    std::map<std::string, std::string> env = kExecuting;
    env["FAKE_CUDA_KERNELS"] = std::string(EMULATED_KERNELS) + ":" + EMULATED_DIGEST_KERNELS;
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_FORMATS"] = "json";
    env["BRICKPROF_OUTPUT"] = (dir_ / tag).string();
    if (checksums != nullptr) env["BRICKPROF_CHECKSUMS"] = checksums;
    Result r = run(argv, env);
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    std::ifstream in(dir_ / (tag + ".json"));
    return std::make_pair(generated_lines(r.out), json::parse(in));
  };
  const auto [plain_out, plain] = traced("plain", nullptr);
  const auto [host_out, host] = traced("host", "host");
  const auto [device_out, device] = traced("device", "1");
  const auto [again_out, again] = traced("again", "host");
  ASSERT_NE(plain_out, "");
  EXPECT_EQ(host_out, plain_out);
  EXPECT_EQ(device_out, plain_out);
  EXPECT_EQ(host["diagnostics"]["checksum_mode"], "host-copy (BRICKPROF_CHECKSUMS=host)");
  const std::string mode = device["diagnostics"]["checksum_mode"];
  EXPECT_EQ(mode.rfind("device (", 0), 0u) << mode;
  EXPECT_EQ(mode.find("by host copy"), std::string::npos) << mode;
  for (const json* t : {&host, &device})
    EXPECT_TRUE((*t)["diagnostics"]["warnings"].empty()) << (*t)["diagnostics"].dump();
  auto program_digests = [](const json& t) {
    std::vector<std::string> out;
    for (const json& c : t["checksums"])
      if (c["source"] == "program") out.push_back(c["name"].get<std::string>() + " " +
                                                  c["fnv1a"].get<std::string>());
    return out;
  };
  EXPECT_FALSE(program_digests(plain).empty());
  EXPECT_EQ(program_digests(host), program_digests(plain));
  EXPECT_EQ(program_digests(device), program_digests(plain));
  // Each kernel's digests ("kernel ordinal, argument" -> the digest less
  // where and how it was taken), every kernel digested.
  auto kernel_digests = [](const json& t, const std::string& source) {
    std::map<uint64_t, size_t> ordinal;
    for (const json* k : of_kind(t, "kernel")) ordinal[(*k)["id"].get<uint64_t>()] = ordinal.size();
    std::map<std::string, json> out;
    std::set<uint64_t> digested;
    for (json c : t["checksums"]) {
      if (c["source"] == "program") continue;
      EXPECT_EQ(c["source"], source) << c.dump();
      const uint64_t node = c["node"].get<uint64_t>();
      digested.insert(node);
      const std::string key =
          std::to_string(ordinal.at(node)) + " " + c["name"].get<std::string>();
      for (const char* field : {"source", "node", "address"}) c.erase(field);
      out[key] = c;
    }
    EXPECT_EQ(digested.size(), ordinal.size()) << "each kernel writes at least one buffer";
    return out;
  };
  const std::map<std::string, json> by_host = kernel_digests(host, "host-copy");
  const std::map<std::string, json> by_device = kernel_digests(device, "device");
  ASSERT_FALSE(by_host.empty());
  ASSERT_EQ(by_device.size(), by_host.size());
  for (const auto& [key, digest] : by_host)
    EXPECT_EQ(by_device.at(key), digest) << key << ": the same digest by both paths";

  Result d = run({BRICKPROF_BIN, "diff", "--outputs", "--json", (dir_ / "host.json").string(),
                  (dir_ / "again.json").string()},
                 {});
  ASSERT_EQ(d.exit_code(), 0) << d.out << d.err;
  const json diff = json::parse(d.out);
  EXPECT_EQ(diff["identical"], diff["compared"].size());
  EXPECT_GT(diff["compared"].size(), program_digests(host).size())
      << "the kernels' outputs are lined up too";
  EXPECT_TRUE(diff["only_base"].empty());
  EXPECT_TRUE(diff["only_new"].empty());
}

// Past 48 KiB of shared memory per block a kernel must opt in with
// cuFuncSetAttribute, or the launch fails (the fake driver refuses it as a
// real one does). An f32 GEMV over --ffn 12288 keeps 12288 * 4 = 49152
// bytes of input there, attention over --context 12288 49152 bytes of
// scores beside 128 of static scratch (the scores alone would fit; the fake
// reads the static part from the PTX). Both run, eager and as a replayed
// graph, and generate the scalar backend's tokens. (The Q4_K GEMV keeps
// nothing in shared memory.)
TEST_F(FakeBricklayerTest, ExecutedKernelsPast48KiBOfSharedMemoryOptIn) {
  if (std::string(EMULATED_KERNELS).empty()) GTEST_SKIP() << "no CUDA emulator on this machine";
  const std::vector<std::string> model = {
      "--layers",  "1",     "--hidden",        "256", "--heads",   "4",  "--kv-heads", "2",
      "--ffn",     "12288", "--vocab",         "256", "--prompt",  "2",  "--tokens",   "2",
      "--context", "12288", "--probe-seconds", "0",   "--weights", "f32"};
  auto with = [&](std::initializer_list<std::string> flags) {
    std::vector<std::string> all = model;
    all.insert(all.end(), flags);
    return all;
  };
  const std::string scalar = generated_by(with({"--backend", "scalar"}), {});
  ASSERT_NE(scalar, "");
  EXPECT_EQ(generated_by(with({"--backend", "cuda", "--mode", "eager"}), kExecuting), scalar);
  EXPECT_EQ(generated_by(with({"--backend", "cuda", "--mode", "graph"}), kExecuting), scalar);
}

// Past the device's opt-in maximum (232448 bytes on sm_90) no launch can
// succeed: the backend refuses up front with one line naming the kernel and
// the sizes, not with a failed cuFuncSetAttribute.
TEST_F(FakeBricklayerTest, SharedMemoryPastTheOptinMaximumIsRefusedClearly) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--ffn", "58368", "--weights", "f32"},
       "bl_gemv_f32 needs 233472 bytes of shared memory per block for a GEMV input of 58368 "
       "values (--hidden, --ffn)"},
      {{"--context", "65536"},
       "bl_attention needs 262272 bytes of shared memory per block for --context 65536"}};
  for (const auto& [flags, need] : cases) {
    std::vector<std::string> argv = {
        BRICKLAYER, "--backend",  "cuda", "--layers",  "1",   "--hidden",        "256", "--heads",
        "4",        "--kv-heads", "2",    "--ffn",     "512", "--vocab",         "256", "--prompt",
        "2",        "--tokens",   "1",    "--context", "64",  "--probe-seconds", "0"};
    argv.insert(argv.end(), flags.begin(), flags.end());  // later flags win
    Result r = run(argv, {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}});
    EXPECT_EQ(r.exit_code(), 2) << r.err;
    EXPECT_EQ(r.err,
              "bricklayer: backend cuda: " + need + ", over the 232448 this device allows\n");
  }
}

}  // namespace
