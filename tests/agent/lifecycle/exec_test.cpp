// The agent's exec and _exit hooks in real processes (exec_app): what a
// process recorded before it execs or _exits is written, under a name the
// next image cannot overwrite, and the host sees the same exit code, output
// and errno.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using brickprof::test::Result;
using brickprof::test::run;
using Names = std::vector<std::string>;

class ExecTest : public brickprof::test::PreloadFixture {
 protected:
  // The output files' names, sorted.
  Names names() {
    Names all;
    for (const fs::path& f : outputs()) all.push_back(f.filename().string());
    std::sort(all.begin(), all.end());
    return all;
  }
  // The one trace whose file name matches `pattern` (a regex; P stands for
  // the pid).
  json only(std::string pattern) {
    pattern = std::regex_replace(pattern, std::regex("P"), "[0-9]+");
    pattern = std::regex_replace(pattern, std::regex("\\."), "\\.");
    std::vector<fs::path> found;
    for (const fs::path& f : outputs())
      if (std::regex_match(f.filename().string(), std::regex(pattern))) found.push_back(f);
    EXPECT_EQ(found.size(), 1u) << pattern << " in " << testing::PrintToString(names());
    return found.size() == 1 ? load(found[0]) : json::object();
  }
  // exec_app `mode` with and without the agent (at BRICKPROF_LOG=info, so
  // stderr lists each write): the same stdout.
  Result run_logging_writes(const char* mode) {
    Result plain = run({BRICKPROF_EXEC_APP, mode}, {});
    auto env = agent_env();
    env["BRICKPROF_LOG"] = "info";
    Result r = run({BRICKPROF_EXEC_APP, mode}, env);
    EXPECT_EQ(r.out, plain.out);
    return r;
  }
};

Names scope_names(const json& t) {
  Names names;
  for (const json& n : t["nodes"]) names.push_back(n["name"].get<std::string>());
  return names;
}

bool warns(const json& t, const std::string& text) {
  for (const json& w : t["diagnostics"]["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// How many times `what` occurs in `text`.
size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The program before the exec and `true` after it each write a trace (same
// pid); ours ends where the exec began and says so.
TEST_F(ExecTest, ExecWritesWhatWasRecordedBeforeIt) {
  Result r = run({BRICKPROF_EXEC_APP, "exec-via", "execv"}, agent_env("%n-%p"));
  ASSERT_EQ(r.exit_code(), 0) << r.err;  // true's
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(names().size(), 2u) << testing::PrintToString(names());
  json before = only("exec_app-P.pre-exec.json");
  EXPECT_EQ(scope_names(before), Names{"before exec"});
  EXPECT_TRUE(warns(before, "written before exec of /bin/true")) << before["diagnostics"];
  json after = only("true-P.json");
  EXPECT_EQ(after["nodes"].size(), 0u);
  EXPECT_EQ(after["process"]["pid"], before["process"]["pid"]);
}

// Same program, same pid, so the same name: neither trace overwrites the
// other.
TEST_F(ExecTest, ProgramThatRunsItselfAgainKeepsBothTraces) {
  Result r = run({BRICKPROF_EXEC_APP, "exec-self"}, agent_env("%n-%p"));
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.out, "after exec\n");
  EXPECT_EQ(names().size(), 2u) << testing::PrintToString(names());
  EXPECT_EQ(scope_names(only("exec_app-P.pre-exec.json")), Names{"before exec"});
  EXPECT_EQ(scope_names(only("exec_app-P.json")), Names{"after exec"});
}

// Each exec in a chain keeps its own trace, even under a name without %n.
TEST_F(ExecTest, ChainOfExecsKeepsEveryTrace) {
  Result r = run({BRICKPROF_EXEC_APP, "exec-chain", "2"}, agent_env("out-%p"));
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(names().size(), 3u) << testing::PrintToString(names());
  EXPECT_EQ(scope_names(only("out-P.pre-exec.json")), Names{"step 2"});
  EXPECT_EQ(scope_names(only("out-P.pre-exec-2.json")), Names{"step 1"});
  EXPECT_EQ(scope_names(only("out-P.json")), Names{"step 0"});
}

// glibc's exec functions do not call one another through the exported
// names, so each is its own hook.
TEST_F(ExecTest, EveryExecEntryPointWritesFirst) {
  for (const char* entry : {"execve", "execv", "execvp", "execvpe", "execl", "execlp", "execle",
                            "fexecve", "execveat"}) {
    SCOPED_TRACE(entry);
    for (const fs::path& f : outputs()) fs::remove(f);
    Result r = run({BRICKPROF_EXEC_APP, "exec-via", entry}, agent_env());
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    EXPECT_EQ(names().size(), 2u) << testing::PrintToString(names());
    json before = only("out-P.pre-exec.json");
    EXPECT_EQ(scope_names(before), Names{"before exec"});
    EXPECT_TRUE(warns(before, "written before exec of ")) << before["diagnostics"];
  }
}

// The exec fails: the program sees the same -1 and errno, records on, and
// ends with one trace holding everything (the one written before the exec
// is replaced; BRICKPROF_LOG=info shows both writes).
TEST_F(ExecTest, FailedExecRecordsOnAndLeavesOneWholeTrace) {
  Result r = run_logging_writes("exec-fails");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "exec returned -1, errno EACCES\n");
  EXPECT_EQ(count_of(r.err, "pre-exec.*"), 1u) << r.err;  // written, then replaced
  EXPECT_EQ(names().size(), 1u) << testing::PrintToString(names());
  json t = only("out-P.json");
  EXPECT_EQ(scope_names(t), (Names{"before exec", "after exec"}));
  EXPECT_FALSE(warns(t, "before exec of")) << t["diagnostics"];
  EXPECT_EQ(t["diagnostics"]["open_scopes_at_exit"], 0);
}

// An exec of a file that is not there fails before anything is written
// (no trace per PATH entry for a program found late in the search).
TEST_F(ExecTest, ExecThatCannotRunWritesNothingFirst) {
  Result r = run_logging_writes("exec-missing");
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "exec returned -1, errno ENOENT\n");
  EXPECT_EQ(count_of(r.err, "pre-exec.*"), 0u) << r.err;
  EXPECT_EQ(names().size(), 1u) << testing::PrintToString(names());
  EXPECT_EQ(scope_names(only("out-P.json")), (Names{"before exec", "after exec"}));
}

// A child that recorded nothing (forked or vforked) execs a program without
// the agent: no trace from it, and the parent's is whole.
TEST_F(ExecTest, ChildThatRecordedNothingLeavesNoTraceAtExec) {
  for (const char* mode : {"fork-exec", "vfork-exec"}) {
    SCOPED_TRACE(mode);
    for (const fs::path& f : outputs()) fs::remove(f);
    Result r = run({BRICKPROF_EXEC_APP, mode}, agent_env());
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    EXPECT_EQ(r.out, "child exited 0\n");
    EXPECT_EQ(names().size(), 1u) << testing::PrintToString(names());
    json t = only("out-P.json");
    EXPECT_EQ(scope_names(t), Names{"parent"});
    EXPECT_TRUE(t["diagnostics"]["warnings"].empty()) << t["diagnostics"];
  }
}

// A shell that records nothing and execs: only the program's trace.
TEST_F(ExecTest, ShellThatExecsLeavesOnlyTheProgramsTrace) {
  Result r = run({"/bin/sh", "-c", "exec /bin/true"}, agent_env());
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(names().size(), 1u) << testing::PrintToString(names());
  EXPECT_EQ(only("out-P.json")["nodes"].size(), 0u);
}

// Another thread records while the trace is written; the exec still runs.
TEST_F(ExecTest, ExecWhileAnotherThreadRecords) {
  Result r = run({BRICKPROF_EXEC_APP, "exec-threads"}, agent_env());
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  Names scopes = scope_names(only("out-P.pre-exec.json"));
  EXPECT_EQ(std::count(scopes.begin(), scopes.end(), "before exec"), 1);
  EXPECT_GE(std::count(scopes.begin(), scopes.end(), "worker"), 1);
}

// _exit skips atexit (and stdio's flush: the unflushed text stays lost, as
// without the agent); the trace is still written and the status kept.
TEST_F(ExecTest, UnderscoreExitWritesTheTraceAndKeepsItsStatus) {
  for (const char* mode : {"_exit", "_Exit"}) {
    SCOPED_TRACE(mode);
    for (const fs::path& f : outputs()) fs::remove(f);
    Result r = expect_unchanged({BRICKPROF_EXEC_APP, mode});
    EXPECT_EQ(r.exit_code(), 3);
    EXPECT_EQ(r.out, "");
    json t = only("out-P.json");
    EXPECT_EQ(scope_names(t), Names{"before exit"});
    EXPECT_TRUE(warns(t, std::string("written at ") + mode + "(3)")) << t["diagnostics"];
  }
}

// quick_exit skips atexit too; the agent's at_quick_exit handler runs last,
// after the program's (which records a scope of its own).
TEST_F(ExecTest, QuickExitWritesTheTraceAfterTheProgramsHandlers) {
  Result r = expect_unchanged({BRICKPROF_EXEC_APP, "quick_exit"});
  EXPECT_EQ(r.exit_code(), 3);
  EXPECT_EQ(r.out, "handler ran\n");
  json t = only("out-P.json");
  EXPECT_EQ(scope_names(t), (Names{"before exit", "at quick exit"}));
}

// The write blocks (the agent logs through stdio at BRICKPROF_LOG=info,
// and another thread holds stderr's lock for good, as a thread stopped
// mid-fprintf would; or the hook runs in a signal handler that interrupted
// malloc): past the deadline the exec or _exit goes ahead without waiting.
TEST_F(ExecTest, StuckWriteStillLeavesAsAsked) {
  auto env = agent_env();
  env["BRICKPROF_LOG"] = "info";
  env["BRICKPROF_SIGNAL_DUMP_SECONDS"] = "1";
  Result exited = run({BRICKPROF_EXEC_APP, "stuck-exit"}, env);
  EXPECT_EQ(exited.exit_code(), 3);
  Result execed = run({BRICKPROF_EXEC_APP, "stuck-exec"}, env);
  EXPECT_EQ(execed.exit_code(), 0);  // true's
}

// A pending alarm survives exec: the write's deadline must not take its
// place.
TEST_F(ExecTest, HostsAlarmSurvivesTheExec) {
  Result r = run({BRICKPROF_EXEC_APP, "alarm-exec"}, agent_env());
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  int left = std::stoi(r.out);
  EXPECT_GE(left, 28);
  EXPECT_LE(left, 30);
  EXPECT_EQ(names().size(), 2u) << testing::PrintToString(names());
}

}  // namespace
