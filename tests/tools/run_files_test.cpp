// `brickprof run` with the real agent: the files a run leaves are the ones a
// user expects (the program started, and whatever recorded something), and
// run lists each of them on stderr when the program ends.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "spawn.h"
#include "trace/model/recorded.h"

namespace brickprof::test {
namespace {

namespace fs = std::filesystem;

const std::string kWrote = "brickprof: wrote ";

CliResult run_with_agent(std::vector<std::string> args, EnvChanges env = {}) {
  args.insert(args.begin(), "run");
  env.push_back({"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH});
  return run_brickprof(args, env);
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The paths run listed, in order.
std::vector<std::string> listed(const std::string& err) {
  std::vector<std::string> paths;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(kWrote, 0) == 0) paths.push_back(line.substr(kWrote.size()));
  return paths;
}

void write_script(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  fs::permissions(path, fs::perms::owner_all);
}

// Shell scripts that exec one another (as pyenv's shims do) and run helper
// programs on the way: only the final program's files, each listed.
TEST(RunFiles, ScriptChainLeavesOnlyTheProgramsFilesAndListsThem) {
  std::string dir = fresh_dir("run_files_chain");
  std::string out = fresh_dir("run_files_chain_out");
  write_script(
      dir + "/first.sh",
      "#!/bin/sh\nhere=$(dirname \"$0\")\nls / >/dev/null\nexec \"$here/second.sh\" \"$@\"\n");
  write_script(dir + "/second.sh",
               "#!/bin/bash\ncat </dev/null\nv=$(uname)\nexec /bin/true \"$@\"\n");
  CliResult r = run_with_agent({"--output", out + "/%n-%p", "--", dir + "/first.sh"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> files = files_in(out);
  ASSERT_EQ(files.size(), 3u) << testing::PrintToString(files);
  for (const std::string& f : files) EXPECT_EQ(f.rfind("true-", 0), 0u) << f;
  std::vector<std::string> paths = listed(r.err);
  ASSERT_EQ(paths.size(), 3u) << r.err;
  EXPECT_EQ(paths[0].substr(paths[0].size() - 5), ".json") << r.err;  // the JSON first
  for (const std::string& p : paths) {
    EXPECT_EQ(fs::path(p).parent_path(), fs::path(out)) << p;
    EXPECT_TRUE(fs::is_regular_file(p)) << p;
  }
  // Nothing but the listing, and (true records nothing) the line that says so.
  const std::string nothing = "brickprof: " + std::string(kNothingRecorded) + "\n";
  EXPECT_EQ(r.err.size(), 3 * kWrote.size() + paths[0].size() + paths[1].size() + paths[2].size() +
                              3 + nothing.size())
      << r.err;
  EXPECT_EQ(r.err.substr(r.err.size() - nothing.size()), nothing) << r.err;
}

// The JSON is written (and listed) first, whatever order --formats gives.
TEST(RunFiles, JsonComesFirst) {
  std::string out = fresh_dir("run_files_order");
  CliResult r =
      run_with_agent({"--output", out + "/t", "--formats", "tree,dot,json", "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listed(r.err),
            (std::vector<std::string>{out + "/t.json", out + "/t.tree.txt", out + "/t.dot"}))
      << r.err;
}

// A relative --output is listed as the absolute path it became.
TEST(RunFiles, RelativeOutputIsListedAbsolute) {
  std::string out = fresh_dir("run_files_relative");
  std::string relative = fs::relative(out, fs::current_path()).string();
  fs::create_directories(out + "/a/b/c/d/e/f/g/h");
  CliResult r = run_with_agent({"--output", relative + "/t", "--formats", "json", "--", "/bin/sh",
                                "-c", "cd " + out + "/a/b/c/d/e/f/g/h"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listed(r.err), std::vector<std::string>{out + "/t.json"}) << r.err;
}

// Many processes that record at once: every file written is listed once.
TEST(RunFiles, ManyProcessesAtOnceAreAllListed) {
  std::string out = fresh_dir("run_files_many");
  std::string app = FILES_APP;
  CliResult r = run_with_agent(
      {"--output", out + "/%n-%p", "--formats", "json", "--", "/bin/sh", "-c",
       "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do " + app + " scopes 100 & done; wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> files = files_in(out);
  EXPECT_EQ(files.size(), 13u) << testing::PrintToString(files);  // 12 apps and the shell
  std::vector<std::string> paths = listed(r.err);
  std::set<std::string> unique(paths.begin(), paths.end());
  EXPECT_EQ(unique.size(), paths.size()) << r.err;
  std::set<std::string> expected;
  for (const std::string& f : files) expected.insert(out + "/" + f);
  EXPECT_EQ(unique, expected) << r.err;
  // The shell recorded nothing, its children did: the run recorded something.
  EXPECT_EQ(r.err.find(kNothingRecorded), std::string::npos) << r.err;
}

// A program that drops the variables run passes still runs as it would,
// with its own exit code; what it writes is not listed, what run's child
// wrote is.
TEST(RunFiles, ChildThatUnsetsTheVariablesKeepsItsExitCode) {
  std::string out = fresh_dir("run_files_unset");
  std::string app = FILES_APP;
  CliResult r =
      run_with_agent({"--output", out + "/%n-%p", "--formats", "json", "--", "/bin/sh", "-c",
                      "for v in $(env | grep -o '^BRICKPROF_RUN[A-Z_]*'); do unset $v; done; " +
                          app + " scopes 2; exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(files_in(out).size(), 2u) << testing::PrintToString(files_in(out));
  std::vector<std::string> paths = listed(r.err);
  ASSERT_EQ(paths.size(), 1u) << r.err;
  EXPECT_NE(paths[0].find("/sh-"), std::string::npos) << r.err;
}

// `python3` as the user's shell finds it (on a pyenv machine, a shim: bash
// scripts that exec each other and run helpers): the Python process's
// three files, no more.
TEST(RunFiles, Python3LeavesThreeFiles) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  std::string out = fresh_dir("run_files_python");
  CliResult r = run_with_agent({"--output", out + "/%n-%p", "--", "python3", "-c", "print(1)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1\n");
  EXPECT_EQ(files_in(out).size(), 3u) << testing::PrintToString(files_in(out));
  EXPECT_EQ(listed(r.err).size(), 3u) << r.err;
}

// Outputs where the user said, with the real agent: a known extension is
// not doubled, a trailing / is a folder (made) with the default names, and
// BRICKPROF_OUTPUT set by hand reads the same.
TEST(RunFiles, OutputsWhereTheUserSaid) {
  std::string out = fresh_dir("run_files_where");
  CliResult named = run_with_agent({"-o", out + "/trace.json", "--", "/bin/true"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(files_in(out), (std::vector<std::string>{"trace.dot", "trace.json", "trace.tree.txt"}));
  CliResult folder = run_with_agent({"-o", out + "/runs/", "--formats", "json", "--", "/bin/true"});
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  std::vector<std::string> in_folder = files_in(out + "/runs");
  ASSERT_EQ(in_folder.size(), 1u);
  EXPECT_EQ(in_folder[0].rfind("brickprof-true-", 0), 0u) << in_folder[0];
  EXPECT_EQ(listed(folder.err), std::vector<std::string>{out + "/runs/" + in_folder[0]});
  // The agent alone, without run: the same reading of the variable.
  fs::create_directory(out + "/env");
  CliResult env = run_with_agent({"--formats", "json", "--", "/bin/true"},
                                 {{"BRICKPROF_OUTPUT", out + "/env/"}});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  ASSERT_EQ(files_in(out + "/env").size(), 1u);
  EXPECT_EQ(files_in(out + "/env")[0].rfind("brickprof-true-", 0), 0u);
}

// `run --formats chrome`: the trace is written too, and report reads it;
// given the Chrome file, report says which file is the trace.
TEST(RunFiles, TheTraceIsAlwaysWrittenAndTheChromeFileIsNamedForWhatItIs) {
  std::string out = fresh_dir("run_files_chrome");
  CliResult r = run_with_agent({"-o", out + "/t", "--formats", "chrome", "--", "/bin/true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listed(r.err), (std::vector<std::string>{out + "/t.json", out + "/t.trace.json"}));
  CliResult chrome = run_brickprof({"report", out + "/t.trace.json"});
  EXPECT_EQ(chrome.exit_code, 2);
  EXPECT_EQ(chrome.err, "brickprof: " + out + "/t.trace.json: no \"schema\" key: not a brickprof "
                        "trace; this is the chrome output brickprof writes beside a trace, not "
                        "the trace: the trace is " + out + "/t.json\n");
  EXPECT_EQ(run_brickprof({"report", out + "/t.json"}).exit_code, 0);
}

}  // namespace
}  // namespace brickprof::test
