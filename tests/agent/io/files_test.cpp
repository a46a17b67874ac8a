// What the agent leaves on disk (files_app and plain programs): a trace
// that parses whatever the program does with its descriptors, where the
// program started, no temporary file after a write cut short, the JSON kept
// when another file cannot be written, only the files a user expects, and
// no more of the command line than asked.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using brickprof::test::Result;
using brickprof::test::run;

class FilesTest : public brickprof::test::PreloadFixture {
 protected:
  std::vector<std::string> all_files() {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (!e.is_directory()) names.push_back(fs::relative(e.path(), dir_).string());
    std::sort(names.begin(), names.end());
    return names;
  }
  size_t lines(const std::string& text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  }
};

// Started with stdout and stderr closed, a program's threads write to
// descriptors 1 and 2 while the trace is written: none of it lands in the
// trace (its files never take descriptors 0-2).
TEST_F(FilesTest, ClosedStdioNeverEndsUpInTheTrace) {
  for (int round = 0; round < 3; ++round) {
    for (const fs::path& f : outputs()) fs::remove(f);
    Result r = run({BRICKPROF_FILES_APP, "closed-stdio"}, agent_env());
    ASSERT_EQ(r.exit_code(), 0);
    std::vector<fs::path> files = outputs();
    ASSERT_EQ(files.size(), 1u);
    std::ifstream in(files[0]);
    json t = json::parse(in, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(t.is_discarded()) << "round " << round << ": the trace does not parse";
    EXPECT_EQ(t["nodes"].size(), 100000u);
  }
}

// A relative BRICKPROF_OUTPUT is where the program started, even if it
// changes directory before the trace is written.
TEST_F(FilesTest, RelativeOutputIsWhereTheProgramStarted) {
  fs::create_directories(dir_ / "elsewhere");
  // The agent is loaded into the program only: a shell under it would write
  // its own trace, at its exec, in the folder the test runs in.
  std::string agent_then_program = "env LD_PRELOAD='" + std::string(BRICKPROF_AGENT_PATH) +
                                   "' BRICKPROF_FORMATS=json BRICKPROF_OUTPUT=rel-%p " +
                                   BRICKPROF_FILES_APP + " chdir elsewhere";
  Result r = run({"/bin/sh", "-c", "cd '" + dir_.string() + "' && exec " + agent_then_program},
                 {});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> files = all_files();
  ASSERT_EQ(files.size(), 1u) << testing::PrintToString(files);
  EXPECT_EQ(files[0].rfind("rel-", 0), 0u) << files[0];
}

// BRICKPROF_CMDLINE: the whole command line (default), the program alone,
// or nothing.
TEST_F(FilesTest, CmdlineKeepsAsMuchAsAsked) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "/bin/true --password=secret"},
      {"full", "/bin/true --password=secret"},
      {"program", "/bin/true"},
      {"none", ""}};
  for (const auto& [mode, expected] : cases) {
    SCOPED_TRACE(mode);
    for (const fs::path& f : outputs()) fs::remove(f);
    auto env = agent_env();
    if (!mode.empty()) env["BRICKPROF_CMDLINE"] = mode;
    Result r = run({"/bin/true", "--password=secret"}, env);
    ASSERT_EQ(r.exit_code(), 0);
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(load_only_output()["process"]["cmdline"], expected);
  }
}

// The trace files get 0666 less the umask, as any file a program creates.
TEST_F(FilesTest, FilesGetTheUmasksMode) {
  Result r = run({"/bin/sh", "-c", std::string("umask 027; exec /bin/true")}, agent_env());
  ASSERT_EQ(r.exit_code(), 0);
  std::vector<fs::path> files = outputs();
  ASSERT_EQ(files.size(), 1u);
  struct stat st;
  ASSERT_EQ(stat(files[0].c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

// SIGTERM, and the trace write stalls for good: past the deadline the
// program dies of SIGTERM and no temporary file is left behind.
TEST_F(FilesTest, WriteCutShortByTheDeadlineLeavesNoTemporaryFile) {
  auto env = agent_env();
  env["BRICKPROF_SIGNAL_DUMP_SECONDS"] = "1";
  Result r = run({BRICKPROF_FILES_APP, "stall-write"}, env);
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  EXPECT_NE(r.err.find("did not finish within BRICKPROF_SIGNAL_DUMP_SECONDS"), std::string::npos)
      << r.err;
  EXPECT_EQ(all_files(), std::vector<std::string>{});
}

// The same before an exec: past the deadline the exec goes ahead without
// the trace, and without its temporary file; the new image writes its own.
TEST_F(FilesTest, ExecPastTheDeadlineLeavesNoTemporaryFile) {
  auto env = agent_env();
  env["BRICKPROF_SIGNAL_DUMP_SECONDS"] = "1";
  Result r = run({BRICKPROF_FILES_APP, "stall-write-exec"}, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;  // true's
  std::vector<std::string> files = all_files();
  ASSERT_EQ(files.size(), 1u) << testing::PrintToString(files);
  EXPECT_EQ(files[0].find(".tmp"), std::string::npos) << files[0];
  EXPECT_EQ(files[0].find("pre-exec"), std::string::npos) << files[0];
}

// A file larger than RLIMIT_FSIZE (a full disk, for that file): the program
// keeps its exit status (SIGXFSZ does not kill it), the files that fit are
// written, one line names the one that is missing, and no temporary file
// is left.
TEST_F(FilesTest, FileTooLargeIsNamedAndTheOthersAreWritten) {
  auto env = agent_env();
  env["BRICKPROF_FORMATS"] = "tree,json,dot";
  Result r = run({BRICKPROF_FILES_APP, "fsize", "200000", "20000"}, env);
  EXPECT_EQ(r.exit_code(), 0) << r.status;
  std::vector<std::string> files = all_files();
  EXPECT_EQ(files.size(), 2u) << testing::PrintToString(files);
  for (const std::string& f : files) EXPECT_EQ(f.find(".json"), std::string::npos) << f;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(".json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
}

// Two formats cannot be written (a folder has their names): the JSON is,
// and one warning line names both missing files. Nothing claims success.
TEST_F(FilesTest, JsonIsKeptAndOneLineNamesEveryMissingFile) {
  fs::create_directories(dir_ / "x.tree.txt");
  fs::create_directories(dir_ / "x.dot");
  auto env = agent_env();
  env["BRICKPROF_OUTPUT"] = (dir_ / "x").string();
  env["BRICKPROF_FORMATS"] = "dot,tree,json";
  env["BRICKPROF_LOG"] = "info";
  Result r = run({BRICKPROF_FILES_APP, "scopes", "10"}, env);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_TRUE(fs::is_regular_file(dir_ / "x.json"));
  EXPECT_EQ(all_files(), std::vector<std::string>{"x.json"});
  std::vector<std::string> naming_missing;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    bool tree = line.find((dir_ / "x.tree.txt").string()) != std::string::npos;
    bool dot = line.find((dir_ / "x.dot").string()) != std::string::npos;
    if (tree || dot) naming_missing.push_back(line);
    EXPECT_EQ(line.find("wrote " + (dir_ / "x.*").string()), std::string::npos) << line;
  }
  ASSERT_EQ(naming_missing.size(), 1u) << r.err;
  EXPECT_NE(naming_missing[0].find("x.tree.txt"), std::string::npos) << r.err;
  EXPECT_NE(naming_missing[0].find("x.dot"), std::string::npos) << r.err;
  EXPECT_EQ(naming_missing[0].find("wrote"), std::string::npos) << r.err;
}

// Programs a profiled shell runs that record nothing leave no file; the
// shell, the program the user started, does (plain LD_PRELOAD, no
// `brickprof run`).
TEST_F(FilesTest, OnlyTheProgramStartedLeavesAnEmptyTrace) {
  Result r = run({"/bin/sh", "-c", "/bin/true; /bin/true; echo done"}, agent_env());
  ASSERT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(outputs().size(), 1u);
}

// ... but one that records something keeps its trace.
TEST_F(FilesTest, ChildThatRecordsStillWritesItsTrace) {
  Result r = run({"/bin/sh", "-c", std::string(BRICKPROF_FILES_APP) + " scopes 3; /bin/true"},
                 agent_env());
  ASSERT_EQ(r.exit_code(), 0);
  std::vector<fs::path> files = outputs();
  ASSERT_EQ(files.size(), 2u);
  size_t with_scopes = 0;
  for (const fs::path& f : files) with_scopes += load(f)["nodes"].size() == 3;
  EXPECT_EQ(with_scopes, 1u);
}

}  // namespace
