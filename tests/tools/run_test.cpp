// `brickprof run`: environment plumbing, exit-code and stdout passthrough,
// with a do-nothing library standing in for the agent.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "spawn.h"

namespace brickprof::test {
namespace {

std::string agent() { return std::filesystem::canonical(FAKE_AGENT).string(); }

// With the stand-in agent, which writes an empty trace (not listed: the
// listing is off unless a test's `env` turns it on).
CliResult run_with_fake(std::vector<std::string> args, EnvChanges env = {}) {
  static const std::string trace = fresh_dir("run_fake") + "/fake.json";
  EnvChanges all = {{"BRICKPROF_AGENT", FAKE_AGENT},
                    {"BRICKPROF_FAKE_TRACE", trace},
                    {"BRICKPROF_LOG", "off"}};
  all.insert(all.end(), env.begin(), env.end());
  return run_brickprof(args, all);
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

// --checksums is a flag (no value): the option after it keeps its own, and
// the command is found after it with or without "--".
TEST(Run, ChecksumsFlagSetsItsVariable) {
  CliResult r = run_with_fake({"run", "--checksums", "--log", "off", "sh", "-c",
                               "echo \"$BRICKPROF_CHECKSUMS|$BRICKPROF_LOG\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1|off\n");
  CliResult off = run_with_fake({"run", "--", "sh", "-c", "echo \"[$BRICKPROF_CHECKSUMS]\""},
                                {{"BRICKPROF_CHECKSUMS", std::nullopt}});
  EXPECT_EQ(off.out, "[]\n") << "off by default: the agent's default, not set";
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
  const EnvChanges listed = {{"BRICKPROF_LOG", std::nullopt}, {"BRICKPROF_FAKE_TRACE", std::nullopt}};
  CliResult r = run_with_fake({"run", "--", "sh", "-c", script}, listed);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-rw-------\n");
  EXPECT_EQ(r.err, "brickprof: wrote " + dir + "/b\nbrickprof: wrote " + dir + "/a\n");
  std::string manifest = read_file(dir + "/manifest-name");
  manifest.pop_back();
  EXPECT_FALSE(std::filesystem::exists(manifest)) << manifest;
  // --log off: nothing printed.
  r = run_with_fake({"run", "--log", "off", "--", "sh", "-c", script}, listed);
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

TEST(Run, GpuMetricsSamplingNeedsMetricsAndAFlagThatTookTheProgramIsNamed) {
  CliResult r = run_with_fake({"run", "--gpu-metrics", "default", "--gpu-metrics-every", "3", "--",
                               "sh", "-c", "echo \"$BRICKPROF_GPU_METRICS $BRICKPROF_GPU_METRICS_EVERY\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "default 3\n");
  r = run_with_fake({"run", "--gpu-metrics-every", "3", "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: --gpu-metrics-every samples the kernels --gpu-metrics "
                   "profiles: give --gpu-metrics too\n");
  r = run_with_fake({"run", "--gpu-metrics", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: no command given: --gpu-metrics took '/bin/true' as its "
                   "value (write --gpu-metrics VALUE -- CMD ARGS...)\n");
}

// --output is checked before the program starts: a missing folder is a
// usage error and the program never runs.
TEST(Run, AMissingOutputFolderStopsBeforeTheProgram) {
  const std::string dir = fresh_dir("run_nodir");
  CliResult r = run_with_fake(
      {"run", "--output", dir + "/nodir/t", "--", "sh", "-c", "touch " + dir + "/ran"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: --output " + dir + "/nodir/t: no folder " + dir +
                       "/nodir (end --output with / to have it made: " + dir + "/nodir/)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran"));
  // A file where the folder should be.
  CliResult file = run_with_fake({"run", "-o", dir + "/ran/t", "--", "true"});
  EXPECT_EQ(file.exit_code, 2);
  std::filesystem::create_directory(dir + "/x");
  CliResult not_dir = run_with_fake({"run", "-o", "/dev/null/t", "--", "true"});
  EXPECT_EQ(not_dir.exit_code, 2);
  EXPECT_NE(not_dir.err.find("/dev/null is not a folder"), std::string::npos) << not_dir.err;
}

TEST(Run, AnUnwritableOutputFolderStopsBeforeTheProgram) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  const std::string dir = fresh_dir("run_readonly");
  ::chmod(dir.c_str(), 0500);
  CliResult r = run_with_fake({"run", "--output", dir + "/t", "--", "true"});
  ::chmod(dir.c_str(), 0700);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write in " + dir + ": Permission denied"), std::string::npos)
      << r.err;
}

// A trailing / is a folder (made, parents too) with the default names in it.
TEST(Run, ATrailingSlashIsAFolderWithTheDefaultNames) {
  const std::string dir = fresh_dir("run_slash");
  CliResult r = run_with_fake(
      {"run", "-o", dir + "/new/deeper/", "--", "sh", "-c", "echo \"$BRICKPROF_OUTPUT\""});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir + "/new/deeper/brickprof-%n-%p\n");
  EXPECT_TRUE(std::filesystem::is_directory(dir + "/new/deeper"));
}

TEST(Run, AKnownExtensionIsNotDoubled) {
  const std::string dir = fresh_dir("run_extension");
  for (const char* name : {"trace.json", "trace.json.gz", "trace.pftrace", "trace"}) {
    CliResult r = run_with_fake({"run", "--output", dir + "/" + name, "--", "sh", "-c",
                                 "echo \"$BRICKPROF_OUTPUT\""});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, dir + "/trace\n") << name;
  }
}

// Every other command reads the JSON trace: --formats always writes it.
TEST(Run, FormatsAlwaysIncludeTheTrace) {
  auto formats = [](const std::string& given) {
    return run_with_fake({"run", "--formats", given, "--", "sh", "-c", "echo $BRICKPROF_FORMATS"})
        .out;
  };
  EXPECT_EQ(formats("chrome"), "json,chrome\n");
  EXPECT_EQ(formats("perfetto,dot"), "json,perfetto,dot\n");
  EXPECT_EQ(formats("json.gz,dot"), "json.gz,dot\n");
  EXPECT_EQ(formats("tree,json"), "tree,json\n");
}

// A run that wrote no trace says why and does not exit 0; the program's
// own failure still wins.
TEST(Run, NoTraceSaysWhyAndIsNotSuccess) {
  const EnvChanges silent = {{"BRICKPROF_FAKE_TRACE", std::nullopt}};
  CliResult ok = run_with_fake({"run", "--", "true"}, silent);
  EXPECT_EQ(ok.exit_code, 125);
  EXPECT_EQ(ok.err.rfind("brickprof: run: no trace was written for true: the agent did not load "
                         "into it",
                         0),
            0u)
      << ok.err;
  EXPECT_EQ(std::count(ok.err.begin(), ok.err.end(), '\n'), 1) << ok.err;
  CliResult failed = run_with_fake({"run", "--", "sh", "-c", "exit 3"}, silent);
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_NE(failed.err.find("no trace was written"), std::string::npos) << failed.err;
  CliResult killed = run_with_fake({"run", "--", "sh", "-c", "kill -KILL $$"}, silent);
  EXPECT_EQ(killed.exit_code, 128 + 9);
  EXPECT_NE(killed.err.find("it was killed by signal 9 (Killed) before the agent could write"),
            std::string::npos)
      << killed.err;
}

TEST(Run, AStaticProgramGetsNoAgentAndRunSaysSo) {
  if (std::string(STATIC_APP).empty()) GTEST_SKIP() << "no static libc to link a static program";
  CliResult r = run_with_fake({"run", "--", STATIC_APP}, {{"BRICKPROF_FAKE_TRACE", std::nullopt}});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_EQ(r.err, std::string("brickprof: run: no trace was written for ") + STATIC_APP + ": " +
                       STATIC_APP +
                       " is statically linked: no dynamic loader runs, so LD_PRELOAD cannot load "
                       "the agent\n");
}

TEST(Run, ASetUserIdProgramGetsNoAgentAndRunSaysSo) {
  // Secure-execution mode needs the IDs to change: a program owned by
  // another user, run by root (the only one who can make such a file).
  if (::geteuid() != 0) GTEST_SKIP() << "making a set-user-ID program of another user needs root";
  const std::string dir = fresh_dir("run_setuid");
  const std::string program = dir + "/true-setuid";
  std::filesystem::copy_file("/bin/true", program);
  ASSERT_EQ(::chown(program.c_str(), 65534, 65534), 0);
  ASSERT_EQ(::chmod(program.c_str(), 04755), 0);
  ::chmod(dir.c_str(), 0755);
  CliResult r = run_with_fake({"run", "--", program}, {{"BRICKPROF_FAKE_TRACE", std::nullopt}});
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find(program + " is set-user-ID: the loader ignores LD_PRELOAD for it"),
            std::string::npos)
      << r.err;
}

// BRICKPROF_AGENT that is not a library: said before the program starts.
TEST(Run, AnAgentThatIsNotALibraryStopsBeforeTheProgram) {
  const std::string dir = fresh_dir("run_bad_agent");
  const std::string text = dir + "/libbrickprof.so";
  std::ofstream(text) << "not a library\n";
  CliResult r = run_brickprof({"run", "--", "sh", "-c", "touch " + dir + "/ran"},
                              {{"BRICKPROF_AGENT", text}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "brickprof: run: agent " + text +
                       ": not an ELF file (the agent is libbrickprof.so)\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/ran"));
}

// The program's own options need no "--": everything from CMD on is its own,
// "--" included.
TEST(Run, TheProgramsOwnOptionsNeedNoDashDash) {
  CliResult r = run_with_fake({"run", "echo", "-la", "--output", "x"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "-la --output x\n");
  CliResult dashes = run_with_fake({"run", "-o", fresh_dir("run_dashes") + "/t", "sh", "-c",
                                    "echo \"$@\"", "x", "--", "y"});
  EXPECT_EQ(dashes.out, "-- y\n");
  // An option of run's that is mistyped is not the command.
  CliResult typo = run_with_fake({"run", "--outptu", "x", "ls"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err,
            "brickprof: run: unknown option --outptu (did you mean --output?) (brickprof run "
            "--help)\n");
}

TEST(Run, MissingCommandIs127) {
  CliResult r = run_with_fake({"run", "--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("/nonexistent/program"), std::string::npos);
}

}  // namespace
}  // namespace brickprof::test
