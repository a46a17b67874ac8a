// The agent preloaded into real processes: annotated ones (nesting and times
// must be right) and unmodified ones (exit code and output must not change).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using brickprof::test::Result;
using brickprof::test::run;

class PreloadTest : public brickprof::test::PreloadFixture {};

TEST_F(PreloadTest, AnnotatedThreadsNestAndTimesMatchBusyWaits) {
  auto env = agent_env();
  std::string spin_log = (dir_ / "spins.txt").string();
  env["ANNOTATED_SPIN_LOG"] = spin_log;
  Result r = run({BRICKPROF_ANNOTATED_APP, "threads"}, env);
  std::vector<std::pair<double, double>> spins;  // the app's own busy-wait intervals
  {
    std::ifstream in(spin_log);
    for (double s, e; in >> s >> e;) spins.emplace_back(s, e);
  }
  ASSERT_EQ(spins.size(), 12u);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "done threads\n");
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  ASSERT_EQ(t["schema"], "brickprof/1");
  const json& nodes = t["nodes"];
  int layers = 0, rms = 0, gate = 0;
  for (const json& n : nodes) {
    double ms = (n["end_ns"].get<double>() - n["start_ns"].get<double>()) / 1e6;
    if (n["kind"] == "layer") {
      ++layers;
      EXPECT_TRUE(n["parent"].is_null());  // worker threads: layers are roots
    } else if (n["kind"] == "brick") {
      const json& parent = nodes[n["parent"].get<size_t>()];
      EXPECT_EQ(parent["kind"], "layer");
      EXPECT_EQ(parent["thread"], n["thread"]);
      double target = n["name"] == "RmsNorm" ? 2.0 : 4.0;
      (n["name"] == "RmsNorm" ? rms : gate)++;
      // The brick encloses exactly one busy-wait, and lasts as long within 5%.
      double start = n["start_ns"].get<double>(), end = n["end_ns"].get<double>();
      int enclosed = 0;
      for (auto [s, e] : spins) {
        if (s < start || e > end) continue;
        ++enclosed;
        double spin_ms = (e - s) / 1e6;
        EXPECT_GE(spin_ms, target);
        EXPECT_NEAR(ms, spin_ms, spin_ms * 0.05) << n.dump();
      }
      EXPECT_EQ(enclosed, 1) << n.dump();
      if (n["name"] == "RmsNorm") {
        EXPECT_EQ(n["flops"], 3 * 4096);
        EXPECT_EQ(n["category"], "Norm");
      }
    }
  }
  EXPECT_EQ(layers, 6);
  EXPECT_EQ(rms, 6);
  EXPECT_EQ(gate, 6);
  EXPECT_EQ(t["diagnostics"]["unbalanced_pops"], 0);
  EXPECT_EQ(t["diagnostics"]["dropped_events"], 0);
  EXPECT_EQ(t["bricks"].size(), 2u);
  EXPECT_EQ(t["threads"].size(), 4u);
  int named_workers = 0;  // exited before the dump, names kept
  for (const auto& th : t["threads"])
    if (th["name"].get<std::string>().rfind("worker-", 0) == 0) ++named_workers;
  EXPECT_EQ(named_workers, 3);
}

TEST_F(PreloadTest, TrueIsUnchanged) {
  expect_unchanged({"/bin/true"});
  json t = load_only_output();
  EXPECT_EQ(t["nodes"].size(), 0u);
  EXPECT_NE(t["diagnostics"]["cupti"].get<std::string>().find("unavailable"), std::string::npos);
}

// JSON must be UTF-8; a program's arguments need not be (a Latin-1 file
// name): the trace still parses, with U+FFFD in its place.
TEST_F(PreloadTest, ArgumentThatIsNotUtf8StillGivesAReadableTrace) {
  expect_unchanged({"/bin/true", "caf\xe9"});
  json t = load_only_output();  // nlohmann rejects invalid UTF-8
  EXPECT_EQ(t["process"]["cmdline"], "/bin/true caf\uFFFD");
}

TEST_F(PreloadTest, FalseKeepsItsExitCode) {
  Result r = expect_unchanged({"/bin/false"});
  EXPECT_EQ(r.exit_code(), 1);
}

TEST_F(PreloadTest, PythonIsUnchanged) {
  if (system("python3 -c pass 2>/dev/null") != 0) GTEST_SKIP() << "no python3";
  Result r = expect_unchanged({"python3", "-c", "import sys; print('hi'); sys.exit(4)"});
  EXPECT_EQ(r.exit_code(), 4);
  EXPECT_EQ(r.out, "hi\n");
}

TEST_F(PreloadTest, ShellWithSubshellsIsUnchanged) {
  Result r = expect_unchanged({"/bin/sh", "-c", "echo a; (echo b; exit 3); echo $?; exit 6"});
  EXPECT_EQ(r.exit_code(), 6);
  EXPECT_EQ(r.out, "a\nb\n3\n");
}

TEST_F(PreloadTest, ForkedChildWritesItsOwnTrace) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "fork"});
  EXPECT_EQ(r.out, "child\nparent saw 5\n");
  auto files = outputs();
  ASSERT_EQ(files.size(), 2u);
  int with_child = 0, with_parent = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    json t = json::parse(in);
    for (const json& n : t["nodes"]) {
      with_child += n["name"] == "child";
      with_parent += n["name"] == "parent";
    }
  }
  EXPECT_EQ(with_child, 1);  // the parent's events are not repeated in the child
  EXPECT_EQ(with_parent, 1);
}

// Nothing recorded, nothing to keep: no file from the child.
TEST_F(PreloadTest, ForkedChildThatRecordedNothingLeavesNoTrace) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "fork-quiet"});
  EXPECT_EQ(r.out, "child\nparent saw 5\n");
  json t = load_only_output();
  ASSERT_EQ(t["nodes"].size(), 1u);
  EXPECT_EQ(t["nodes"][0]["name"], "parent");
}

// bash's subshells and command substitutions are forked children that
// exit(), and cat a program it ran that records nothing: only bash's own
// trace.
TEST_F(PreloadTest, BashSubshellsLeaveNoTraces) {
  if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no bash";
  Result r = expect_unchanged({"/bin/bash", "-c", "(exit 3); echo $? $(echo sub) | cat"});
  EXPECT_EQ(r.out, "3 sub\n");
  EXPECT_EQ(outputs().size(), 1u);
}

TEST_F(PreloadTest, SigtermStillDiesOfSigtermAndWritesTrace) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "wait"}, /*term=*/true);
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  json t = load_only_output();
  EXPECT_EQ(t["diagnostics"]["open_scopes_at_exit"], 1);
  ASSERT_EQ(t["nodes"].size(), 1u);
  EXPECT_EQ(t["nodes"][0]["name"], "waiting");
}

// A crash inside a scope: the program dies of the same signal, with the
// same output, and the trace shows where it was (the open scopes) and why.
void expect_crash_trace(const json& t, const std::string& signal) {
  EXPECT_EQ(t["diagnostics"]["open_scopes_at_exit"], 2);
  ASSERT_EQ(t["nodes"].size(), 2u);
  EXPECT_EQ(t["nodes"][0]["kind"], "layer");
  EXPECT_EQ(t["nodes"][1]["name"], "RmsNorm");
  bool said = false;
  for (const json& w : t["diagnostics"]["warnings"])
    said |= w.get<std::string>().find("killed by " + signal) != std::string::npos;
  EXPECT_TRUE(said) << t["diagnostics"].dump();
}

TEST_F(PreloadTest, AbortStillDiesOfSigabrtAndTheTraceShowsWhere) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "abort"});
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGABRT);
  expect_crash_trace(load_only_output(), "SIGABRT");
}

TEST_F(PreloadTest, SegfaultStillDiesOfSigsegvAndTheTraceShowsWhere) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "segv"});
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGSEGV);
  expect_crash_trace(load_only_output(), "SIGSEGV");
}

// The trace write in the signal handler blocks on a lock the program holds
// (stderr's, taken by another thread; the agent logs through stdio at
// BRICKPROF_LOG=info). The deadline ends the wait: the program still dies
// of SIGTERM, within the deadline, with its trace written.
TEST_F(PreloadTest, StuckTraceWriteAfterSigtermStillDiesOfSigterm) {
  auto env = agent_env();
  env["BRICKPROF_LOG"] = "info";
  env["BRICKPROF_SIGNAL_DUMP_SECONDS"] = "1";
  Result r = run({BRICKPROF_ANNOTATED_APP, "stuck-stderr"}, env);
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  json t = load_only_output();
  ASSERT_EQ(t["nodes"].size(), 1u);
  EXPECT_EQ(t["nodes"][0]["name"], "stuck");
}

// SIGTERM landing on a thread inside one of the agent's locks (one the
// trace write takes too) is held until the thread leaves it: the trace is
// written, not given up at the deadline after waiting for itself.
TEST_F(PreloadTest, SigtermInsideTheAgentsLockIsHeldUntilItIsReleased) {
  auto env = agent_env();
  env["BRICKPROF_SIGNAL_DUMP_SECONDS"] = "3";
  for (int round = 0; round < 3; ++round) {
    Result r = run({BRICKPROF_ANNOTATED_APP, "toggling"}, env);
    ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
    EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
    EXPECT_EQ(r.err, "");  // no deadline message
    json t = load_only_output();
    ASSERT_EQ(t["nodes"].size(), 1u) << "round " << round;
    EXPECT_EQ(t["nodes"][0]["name"], "toggling");
    for (const auto& file : outputs()) std::filesystem::remove(file);
  }
}

TEST_F(PreloadTest, UnwritableOutputWarnsOnceAndChangesNothingElse) {
  auto env = agent_env();
  env["BRICKPROF_OUTPUT"] = "/nonexistent-dir/x";
  Result r = run({BRICKPROF_ANNOTATED_APP, "threads"}, env);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "done threads\n");
  EXPECT_NE(
      r.err.find("brickprof: trace files not written: /nonexistent-dir/x.json: cannot create"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST_F(PreloadTest, BadEnvironmentValueWarnsOnceAndUsesDefault) {
  auto env = agent_env();
  env["BRICKPROF_SYNC"] = "sometimes";
  Result r = run({"/bin/true"}, env);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_NE(r.err.find("BRICKPROF_SYNC"), std::string::npos);
  json t = load_only_output();
  EXPECT_EQ(t["diagnostics"]["warnings"].size(), 1u);
}

TEST_F(PreloadTest, LoadingTwiceIsHarmless) {
  fs::path copy = dir_ / "copy-of-agent.so";
  fs::copy_file(BRICKPROF_AGENT_PATH, copy);
  auto env = agent_env();
  env["LD_PRELOAD"] =
      std::string(BRICKPROF_AGENT_PATH) + ":" + BRICKPROF_AGENT_PATH + ":" + copy.string();
  env["CUDA_INJECTION64_PATH"] = copy.string();
  Result r = run({BRICKPROF_ANNOTATED_APP, "threads"}, env);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  EXPECT_EQ(
      t["nodes"].size(),
      1u + 3u * 2u * 3u);  // each scope once: main + 3 threads x 2 layers x (layer + 2 bricks)
}

TEST_F(PreloadTest, CProgramRecordsThroughTheC99Api) {
  Result plain = run({BRICKPROF_C_APP}, {});
  EXPECT_EQ(plain.out, "c ok 0\n");  // no agent: every call is a no-op
  EXPECT_TRUE(outputs().empty());
  Result r = run({BRICKPROF_C_APP}, agent_env());
  EXPECT_EQ(r.out, "c ok 1\n");
  json t = load_only_output();
  int layers = 0, qkv = 0, rope = 0, scopes = 0;
  for (const json& n : t["nodes"]) {
    layers += n["kind"] == "layer";
    qkv += n["name"] == "QkvProjection";
    rope += n["name"] == "RopeEmbedding";
    scopes += n["name"] == "c scope";
  }
  EXPECT_EQ(layers, 2);
  EXPECT_EQ(qkv, 2);
  EXPECT_EQ(rope, 2);
  EXPECT_EQ(scopes, 2);
  EXPECT_EQ(t["diagnostics"]["unbalanced_pops"], 0);
  // Bandwidth only: FLOP/s stays 0, "not measured".
  ASSERT_EQ(t["devices"].size(), 1u);
  EXPECT_EQ(t["devices"][0]["name"], "cpu");
  EXPECT_EQ(t["devices"][0]["peak_gflops"], 0);
  EXPECT_EQ(t["devices"][0]["peak_gbps"], 12.5);
  EXPECT_EQ(t["devices"][0]["peaks_source"], "measured by the program (c app)");
}

// BRICKPROF_CAPTURE=scope:NAME keeps what ran inside scopes of that name,
// on any thread, while one is open: here the workers' GateProjection bricks
// (the threads take turns, so six windows), not their layers or RmsNorms.
TEST_F(PreloadTest, CaptureByScopeKeepsOnlyWhatRanInside) {
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "scope:GateProjection";
  Result r = run({BRICKPROF_ANNOTATED_APP, "threads"}, env);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "done threads\n");
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  ASSERT_EQ(t["nodes"].size(), 6u);
  for (const json& n : t["nodes"]) {
    EXPECT_EQ(n["name"], "GateProjection");
    EXPECT_TRUE(n["parent"].is_null());  // its layer opened outside the window
    EXPECT_GT(n["end_ns"].get<int64_t>() - n["start_ns"].get<int64_t>(), 4000000);
  }
  const json& d = t["diagnostics"];
  EXPECT_EQ(d["capture"].get<std::string>().rfind("scope 'GateProjection': 6 windows, ", 0), 0u)
      << d["capture"];
  // The windows are in the trace, and each brick lies in one.
  const json& windows = d["capture_windows"];
  ASSERT_EQ(windows.size(), 6u);
  for (const json& n : t["nodes"]) {
    int inside = 0;
    for (const json& w : windows)
      inside += w["start_ns"] <= n["start_ns"] && n["end_ns"] <= w["end_ns"];
    EXPECT_EQ(inside, 1) << n.dump() << windows.dump();
  }
  EXPECT_EQ(d["unbalanced_pops"], 0);
  EXPECT_EQ(d["scopes_cut_by_capture"], 0);
  EXPECT_EQ(d["open_scopes_at_exit"], 0);
}

// The C macros pop whether or not the push was recorded, and a run-time
// name ("Rope", an alias of RopeEmbedding) opens the window too.
TEST_F(PreloadTest, CaptureByScopeWorksThroughTheC99Api) {
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "scope:RopeEmbedding";
  Result r = run({BRICKPROF_C_APP}, env);
  EXPECT_EQ(r.out, "c ok 0\n");  // not recording outside the windows
  json t = load_only_output();
  ASSERT_EQ(t["nodes"].size(), 2u);
  for (const json& n : t["nodes"]) EXPECT_EQ(n["name"], "RopeEmbedding");
  EXPECT_EQ(t["diagnostics"]["unbalanced_pops"], 0);
  EXPECT_EQ(t["diagnostics"]["scopes_cut_by_capture"], 0);
}

TEST_F(PreloadTest, HostPeaksTheProgramSetsBecomeTheCpuDevice) {
  Result r = expect_unchanged({BRICKPROF_ANNOTATED_APP, "host-peaks"});
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "done host-peaks\n");
  json t = load_only_output();
  ASSERT_EQ(t["devices"].size(), 1u) << t["devices"].dump();
  const json& cpu = t["devices"][0];
  EXPECT_EQ(cpu["name"], "cpu");
  EXPECT_EQ(cpu["id"], brickprof::kHostDeviceId);
  EXPECT_EQ(cpu["peak_gflops"], 123.5);
  EXPECT_EQ(cpu["peak_gbps"], 45.25);
  EXPECT_EQ(cpu["peaks_source"], "measured by the program (test probe \xe2\x9c\x93 (4 threads))");
  // The reader takes it as the host's entry.
  brickprof::Trace read = brickprof::read_trace_file(outputs()[0].string());
  ASSERT_EQ(read.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(read.devices[0].peak_gbps, 45.25);
}

TEST_F(PreloadTest, NoHostPeaksNoCpuDevice) {
  Result r = run({BRICKPROF_ANNOTATED_APP, "threads"}, agent_env());  // never calls it
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(load_only_output()["devices"], json::array());
}

// stress_app opens 200000 scopes; the header writes them inline, across
// many chunk changes (8 KiB up to 2 MiB blocks from the page thread).
constexpr uint64_t kStressScopes = 200000;

TEST_F(PreloadTest, InlineFastPathLosesNothingAcrossChunks) {
  Result r = run({BRICKPROF_STRESS_APP}, agent_env());
  EXPECT_EQ(r.exit_code(), 0);
  json t = load_only_output();
  EXPECT_EQ(t["nodes"].size(), kStressScopes);
  EXPECT_EQ(t["diagnostics"]["dropped_events"], 0);
  EXPECT_EQ(t["diagnostics"]["unbalanced_pops"], 0);
  EXPECT_EQ(t["diagnostics"]["open_scopes_at_exit"], 0);
}

TEST_F(PreloadTest, TinyBufferCountsDroppedEventsInTheOutput) {
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = "1";
  Result r = run({BRICKPROF_STRESS_APP}, env);
  EXPECT_EQ(r.exit_code(), 0);
  json t = load_only_output();
  uint64_t dropped = t["diagnostics"]["dropped_events"].get<uint64_t>();
  EXPECT_GT(dropped, 0u);
  // Every scope is either in the trace or counted (a scope cut at its pop
  // is both: its node stays, closed where the record ends).
  EXPECT_GE(t["nodes"].size() + dropped, kStressScopes);
  EXPECT_LE(t["nodes"].size() + dropped, kStressScopes + 1);
  EXPECT_FALSE(t["diagnostics"]["warnings"].empty());
}

}  // namespace
