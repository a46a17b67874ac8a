// `brickprof run`: environment plumbing, exit-code and stdout passthrough,
// with a do-nothing library standing in for the agent.
#include <gtest/gtest.h>

#include <filesystem>

#include "spawn.h"

namespace brickprof::test {
namespace {

std::string agent() { return std::filesystem::canonical(FAKE_AGENT).string(); }

CliResult run_with_fake(std::vector<std::string> args, EnvChanges env = {}) {
  env.push_back({"BRICKPROF_AGENT", FAKE_AGENT});
  return run_brickprof(args, env);
}

TEST(Run, ExitCodeIsTheCommands) {
  EXPECT_EQ(run_with_fake({"run", "--", "true"}).exit_code, 0);
  EXPECT_EQ(run_with_fake({"run", "--", "/bin/false"}).exit_code, 1);
  EXPECT_EQ(run_with_fake({"run", "--", "sh", "-c", "exit 7"}).exit_code, 7);
}

TEST(Run, KilledBySignalIs128PlusSignal) {
  EXPECT_EQ(run_with_fake({"run", "--", "sh", "-c", "kill -TERM $$"}).exit_code, 128 + 15);
  EXPECT_EQ(run_with_fake({"run", "--", "sh", "-c", "kill -KILL $$"}).exit_code, 128 + 9);
}

TEST(Run, OutputPassesThrough) {
  CliResult r = run_with_fake({"run", "--", "sh", "-c", "echo hello; echo oops >&2"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "oops\n");
}

TEST(Run, CommandWithoutDashDash) {
  CliResult r = run_with_fake({"run", "echo", "plain"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "plain\n");
}

TEST(Run, ArgumentsAfterDashDashAreNotOptions) {
  CliResult r =
      run_with_fake({"run", "--", "sh", "-c", "echo \"$1 $2\"", "x", "--output", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "--output --help\n");
}

TEST(Run, SetsAgentAndOptionEnvironment) {
  CliResult r = run_with_fake(
      {"run", "--output", "/tmp/p-%p", "--formats", "json,chrome", "--log", "debug", "--buffer-mb",
       "64", "--sync", "per-layer", "--gpu", "off", "--ptx", "source", "--capture",
       "scope:decode token", "--cuda-graph-trace", "graph", "--cmdline", "none", "--", "sh", "-c",
       "echo \"$LD_PRELOAD|$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH\"; "
       "echo \"$BRICKPROF_OUTPUT|$BRICKPROF_FORMATS|$BRICKPROF_LOG|$BRICKPROF_BUFFER_MB|"
       "$BRICKPROF_SYNC|$BRICKPROF_GPU|$BRICKPROF_PTX|$BRICKPROF_CAPTURE|"
       "$BRICKPROF_CUDA_GRAPH_TRACE|$BRICKPROF_CMDLINE\""},
      {{"LD_PRELOAD", std::nullopt}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, agent() + "|" + agent() + "|" + agent() + "\n" +
                       "/tmp/p-%p|json,chrome|debug|64|per-layer|off|source|scope:decode token|"
                       "graph|none\n");
}

TEST(Run, BadCmdlineIsAUsageError) {
  CliResult r = run_with_fake({"run", "--cmdline", "some", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cmdline"), std::string::npos) << r.err;
}

// The command is the process the agent treats as the one the user started:
// its pid is BRICKPROF_RUN_PID.
TEST(Run, PassesThePidItStarted) {
  CliResult r = run_with_fake({"run", "--", "sh", "-c", "echo \"$BRICKPROF_RUN_PID $$\""},
                              {{"BRICKPROF_RUN_PID", "1"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string pid = r.out.substr(0, r.out.find(' '));
  EXPECT_EQ(r.out, pid + " " + pid + "\n");
}

// What the agents list in BRICKPROF_RUN_MANIFEST (a private file that is
// gone when run ends), run prints: the files that exist, once each; lines
// that are not a path are not printed.
TEST(Run, ListsTheFilesTheAgentsWrote) {
  std::string dir = fresh_dir("run_listing");
  std::string script = "m=$BRICKPROF_RUN_MANIFEST; ls -l \"$m\" | cut -c1-10; echo \"$m\" >" + dir +
                       "/manifest-name; touch " + dir + "/a " + dir + "/b; printf '" + dir +
                       "/b\\n" + dir + "/a\\nnoise\\n" + dir + "/b\\n" + dir + "/gone\\n' >>\"$m\"";
  CliResult r = run_with_fake({"run", "--", "sh", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-rw-------\n");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/b\nbrickprof: wrote " + dir + "/a\n");
  std::string manifest = read_file(dir + "/manifest-name");
  manifest.pop_back();
  EXPECT_FALSE(std::filesystem::exists(manifest)) << manifest;
  // --log off: nothing printed.
  r = run_with_fake({"run", "--log", "off", "--", "sh", "-c", script});
  EXPECT_EQ(r.err, "");
}

TEST(Run, UnsetOptionsLeaveTheAgentDefaults) {
  CliResult r = run_with_fake({"run", "--", "sh", "-c", "echo \"${BRICKPROF_FORMATS-unset}\""},
                              {{"BRICKPROF_FORMATS", std::nullopt}});
  EXPECT_EQ(r.out, "unset\n");
}

TEST(Run, PrependsToAnExistingPreload) {
  std::string other = std::filesystem::canonical(FAKE_OTHER).string();
  CliResult r =
      run_with_fake({"run", "--", "sh", "-c", "echo \"$LD_PRELOAD\""}, {{"LD_PRELOAD", other}});
  EXPECT_EQ(r.out, agent() + ":" + other + "\n");
  // Already preloaded: not added twice.
  r = run_with_fake({"run", "--", "sh", "-c", "echo \"$LD_PRELOAD\""}, {{"LD_PRELOAD", agent()}});
  EXPECT_EQ(r.out, agent() + "\n");
}

TEST(Run, MissingAgentIsAUsageError) {
  CliResult r =
      run_brickprof({"run", "--", "true"}, {{"BRICKPROF_AGENT", "/nonexistent/libbrickprof.so"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: BRICKPROF_AGENT=/nonexistent/libbrickprof.so: no such file\n");
}

TEST(Run, BadCaptureIsAUsageError) {
  for (const char* bad : {"nvtx", "scope:"}) {
    CliResult r = run_with_fake({"run", "--capture", bad, "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.err, std::string("brickprof: run: --capture: '") + bad +
                         "' is not all, cuda-profiler-api or scope:NAME\n");
  }
}

TEST(Run, CaptureSamplingReachesTheAgentAndNeedsWindows) {
  CliResult r = run_with_fake({"run", "--capture", "scope:step", "--capture-every", "50",
                               "--capture-max", "3", "--", "sh", "-c",
                               "echo \"$BRICKPROF_CAPTURE_EVERY $BRICKPROF_CAPTURE_MAX\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "50 3\n");
  r = run_with_fake({"run", "--capture-every", "50", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: --capture-every/--capture-max sample capture windows: give "
                   "--capture too\n");
  r = run_with_fake({"run", "--capture", "scope:step", "--capture-every", "0", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);  // CLI11's range check
}

TEST(Run, MissingCommandIs127) {
  CliResult r = run_with_fake({"run", "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("/nonexistent/program"), std::string::npos);
}

}  // namespace
}  // namespace brickprof::test
