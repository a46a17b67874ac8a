// Python frames of GPU work on every CPython the machine has
// (interpreters.h), end to end on the fake driver: python_shapes.py
// launches in the shapes real programs launch in (the GIL held and
// released, a C extension releasing it around cuLaunchKernel inside a
// method, threads launching at once while others take and release the GIL,
// a generator, a coroutine, a recursion deeper than BRICKPROF_PYTHON_DEPTH),
// and every kernel must carry the stack whose innermost frame is its
// launching line: file, line and function (qualified where the version has
// co_qualname), with the program's output and status unchanged.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/agent/python/interpreters.h"
#include "tests/support/run_program.h"

namespace fs = std::filesystem;
using brickprof::test::Interpreter;
using brickprof::test::Result;
using brickprof::test::run;
using nlohmann::json;

namespace {

const fs::path kHere = PYTHON_APP_DIR;
constexpr int kDepth = 16;  // BRICKPROF_PYTHON_DEPTH of the runs; the recursion is deeper

// Where each "# launch-site: GRID NAME QUALNAME" of the program's files is.
struct Site {
  std::string name, file, qualname;
  int64_t line = 0;
};
std::map<int, Site> launch_sites(int64_t* recursion_line) {
  std::map<int, Site> sites;
  for (const char* file : {"python_shapes.py", "python_shapes_other.py"}) {
    std::ifstream in(kHere / file);
    std::string text;
    for (int64_t line = 1; std::getline(in, text); ++line) {
      if (text.find("# recursion-site") != std::string::npos) *recursion_line = line;
      const std::string marker = "# launch-site: ";
      const size_t at = text.find(marker);
      if (at == std::string::npos) continue;
      std::stringstream words(text.substr(at + marker.size()));
      int grid = 0;
      Site s;
      if (!(words >> grid >> s.name >> s.qualname)) continue;  // the docstring's description
      s.file = file;
      s.line = line;
      sites[grid] = s;
    }
  }
  return sites;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

// The function name the interpreter gives: co_qualname from 3.11, co_name before.
std::string function_name(const Site& s, int minor) {
  if (minor >= 11) return s.qualname;
  const size_t dot = s.qualname.rfind('.');
  return dot == std::string::npos ? s.qualname : s.qualname.substr(dot + 1);
}

class PythonVersionsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string looked;
    std::optional<Interpreter> found = brickprof::test::find_python(GetParam(), &looked);
    if (!found) GTEST_SKIP() << "CPython " << GetParam() << " absent (looked in " << looked << ")";
    py_ = *found;
    if (py_.minor < 9) GTEST_SKIP() << py_.path << " is 3." << py_.minor << ": frames from 3.9";
    if (!fs::exists(fs::path(py_.include_dir) / "Python.h"))
      GTEST_SKIP() << py_.path << ": no Python.h in " << py_.include_dir
                   << " to build the test's extension with";
    dir_ = fs::temp_directory_path() /
           ("bp-pyversions-" + std::to_string(getpid()) + "-" + std::to_string(py_.minor));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "ext");
    Result built =
        run({C_COMPILER, "-shared", "-fPIC", "-O1", "-I" + py_.include_dir,
             (kHere / "launch_ext.c").string(), "-o",
             (dir_ / "ext" / ("brickprof_launch_ext" + py_.ext_suffix)).string(), "-ldl"},
            {});
    ASSERT_EQ(built.exit_code(), 0) << built.err;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::map<std::string, std::string> env(bool agent) {
    std::map<std::string, std::string> e = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
    if (!agent) return e;
    e["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    e["BRICKPROF_OUTPUT"] = (dir_ / "out" / "trace-%p").string();
    e["BRICKPROF_FORMATS"] = "json";
    e["BRICKPROF_PYTHON_DEPTH"] = std::to_string(kDepth);
    return e;
  }
  // Runs the program plain and traced (same status and output); the trace.
  json run_shapes() {
    return run_traced({py_.path, (kHere / "python_shapes.py").string(), (dir_ / "ext").string()});
  }
  // Runs argv plain and traced: same status and output; the trace.
  json run_traced(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& extra = {}) {
    std::map<std::string, std::string> plain_env = env(false), traced_env = env(true);
    for (const auto& [k, v] : extra) plain_env[k] = traced_env[k] = v;
    Result plain = run(argv, plain_env);
    EXPECT_EQ(plain.exit_code(), 0) << plain.err;
    Result traced = run(argv, traced_env);
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_ / "out"))
      if (e.path().extension() == ".json") files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    if (files.empty()) return json::object();
    std::ifstream in(files[0]);
    return json::parse(in);
  }

  Interpreter py_;
  fs::path dir_;
};

TEST_P(PythonVersionsTest, EveryKernelUnderItsLaunchingLine) {
  int64_t recursion_line = 0;
  const std::map<int, Site> sites = launch_sites(&recursion_line);
  ASSERT_EQ(sites.size(), 11u);
  ASSERT_NE(recursion_line, 0);
  const json t = run_shapes();
  ASSERT_TRUE(t.contains("python_stacks")) << "3." << py_.minor << ": no stacks recorded";
  const json& frames = t["python_frames"];
  const json& stacks = t["python_stacks"];
  for (const json& w : t["diagnostics"]["warnings"])
    EXPECT_EQ(w.get<std::string>().find("Python"), std::string::npos) << w;
  std::map<int, int> seen;
  for (const json& n : t["nodes"]) {
    if (n["kind"] != "kernel") continue;
    const int grid = n["grid"][0];
    ASSERT_TRUE(sites.count(grid)) << n.dump();
    const Site& site = sites.at(grid);
    ++seen[grid];
    ASSERT_TRUE(n.contains("python_stack"))
        << "3." << py_.minor << ", " << site.name << ": " << n.dump();
    const json& stack = stacks.at(n["python_stack"].get<size_t>());
    ASSERT_FALSE(stack.empty());
    const json& inner = frames.at(stack[0].get<size_t>());
    EXPECT_EQ(base_name(inner["file"]), site.file) << site.name;
    EXPECT_EQ(inner["line"], site.line) << site.name << ": " << inner.dump();
    EXPECT_EQ(inner["function"], function_name(site, py_.minor)) << site.name;
    if (site.name == "deep") {
      // The innermost kDepth frames of a deeper recursion.
      ASSERT_EQ(stack.size(), static_cast<size_t>(kDepth));
      for (size_t i = 1; i < stack.size(); ++i) {
        const json& f = frames.at(stack[i].get<size_t>());
        EXPECT_EQ(f["line"], recursion_line) << i;
        EXPECT_EQ(f["function"], "recurse") << i;
      }
    } else if (site.name.rfind("thread_", 0) != 0 && site.name != "coroutine") {
      // Called from main: its line is the next frame out.
      ASSERT_GE(stack.size(), 3u) << site.name;
      EXPECT_EQ(frames.at(stack[1].get<size_t>())["function"], "main") << site.name;
    }
  }
  // Every launch recorded, each with its stack (none lost to a thread that
  // released the GIL, none misattributed to another thread's frames).
  EXPECT_EQ(seen, (std::map<int, int>{{10, 40},
                                      {11, 40},
                                      {12, 40},
                                      {13, 40},
                                      {20, 300},
                                      {21, 300},
                                      {22, 300},
                                      {23, 300},
                                      {30, 40},
                                      {31, 3},
                                      {40, 1}}));
}

// Code objects freed and made again at the same addresses (an exec loop,
// a notebook's cells): no kernel may carry an earlier cell's names.
TEST_P(PythonVersionsTest, ReusedAddressesNeverGiveAnotherCodesNames) {
  constexpr int kRounds = 100;
  const json t =
      run_traced({py_.path, (kHere / "python_cells.py").string(), std::to_string(kRounds)});
  ASSERT_TRUE(t.contains("python_stacks"));
  int kernels = 0;
  for (const json& n : t["nodes"]) {
    if (n["kind"] != "kernel") continue;
    ++kernels;
    const int round = n["grid"][0].get<int>() - 1;
    const json& stack = t["python_stacks"].at(n["python_stack"].get<size_t>());
    ASSERT_GE(stack.size(), 3u);
    const json& cell = t["python_frames"].at(stack[1].get<size_t>());  // inside the launcher
    const std::string file =
        std::string(round < 10 ? "<cell0" : "<cell") + std::to_string(round) + ">";
    EXPECT_EQ(cell["file"], file) << cell.dump();
    EXPECT_EQ(cell["function"], "step") << cell.dump();
    EXPECT_EQ(cell["line"], 2) << cell.dump();
  }
  EXPECT_EQ(kernels, kRounds);
}

// #28: a sub-interpreter alive while threads of the main one launch with
// the GIL released and held, and one launches from code it runs in the
// sub-interpreter. The C API reader crashed (SIGSEGV) here. Every kernel
// has its stack, or is counted in the warning that says why not (on 3.12
// the sub-interpreter's code runs on a thread state another thread made).
TEST_P(PythonVersionsTest, SubInterpreterAliveWhileThreadsLaunch) {
  const fs::path programs = kHere / ".." / ".." / "host" / "programs";
  const json t = run_traced({py_.path, (programs / "py_subinterpreter.py").string()},
                            {{"PYTHONPATH", programs.string()}});
  size_t kernels = 0, with_stack = 0;
  for (const json& n : t["nodes"]) {
    if (n["kind"] != "kernel") continue;
    ++kernels;
    with_stack += n.contains("python_stack");
  }
  uint64_t counted = 0;
  for (const json& w : t["diagnostics"]["warnings"]) {
    const std::string text = w;
    const std::string prefix = "Python stacks not read for ";
    if (text.rfind(prefix, 0) == 0) counted += std::stoull(text.substr(prefix.size()));
  }
  EXPECT_EQ(kernels, 1000u);
  EXPECT_GE(with_stack, 800u);  // the main interpreter's threads, at least
  EXPECT_EQ(with_stack + counted, kernels);
}

INSTANTIATE_TEST_SUITE_P(CPython, PythonVersionsTest,
                         ::testing::ValuesIn(brickprof::test::tested_pythons()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string name = p.param;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

}  // namespace

namespace {

// A Python the agent does not know (3.8 here, whatever its layout): one
// warning naming it, on stderr and in the trace, no stack, nothing else
// changed.
TEST(PythonUnknownVersion, OneWarningNamingIt) {
  std::string looked;
  std::optional<Interpreter> py = brickprof::test::find_python("3.8", &looked);
  if (!py) GTEST_SKIP() << "CPython 3.8 absent (looked in " << looked << ")";
  const fs::path dir = fs::temp_directory_path() / ("bp-py38-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::vector<std::string> argv = {py->path, (kHere / "python_app.py").string()};
  Result plain = run(argv, {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}});
  Result traced = run(argv, {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR},
                             {"LD_PRELOAD", BRICKPROF_AGENT_PATH},
                             {"BRICKPROF_OUTPUT", (dir / "trace").string()},
                             {"BRICKPROF_FORMATS", "json"}});
  EXPECT_EQ(traced.status, plain.status) << traced.err;
  EXPECT_EQ(traced.out, plain.out);
  std::vector<std::string> lines;
  std::stringstream err(traced.err);
  for (std::string line; std::getline(err, line);)
    if (line.rfind("brickprof:", 0) == 0 && line.find("wrote") == std::string::npos)
      lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u) << traced.err;
  EXPECT_NE(lines[0].find("CPython 3.8 is not known"), std::string::npos) << lines[0];
  std::ifstream in(dir / "trace.json");
  const json t = json::parse(in);
  EXPECT_FALSE(t.contains("python_stacks"));
  bool named = false;
  for (const json& w : t["diagnostics"]["warnings"])
    named |= w.get<std::string>().find("CPython 3.8 is not known") != std::string::npos;
  EXPECT_TRUE(named) << t["diagnostics"].dump();
  fs::remove_all(dir);
}

}  // namespace
