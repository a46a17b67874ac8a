// Python frames of GPU work, end to end on the fake driver: python_app.py
// launches through ctypes from four functions in two files, and every
// kernel, copy and memset must carry the stack that ends at its launching
// line, whether its thread held the GIL (ctypes.PyDLL) or released it
// (ctypes.CDLL); the views group the work under those lines; and a program
// without Python is unaffected. (python_versions_test.cpp runs more shapes
// of launch on every CPython the machine has.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/fakes/cuda_driver/fake_gpu_app.h"
#include "tests/support/read_file.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_query.h"
#include "trace/derive/python_frames.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;

namespace {

const fs::path kAppDir = PYTHON_APP_DIR;
const std::string kApp = (kAppDir / "python_app.py").string();

// Where each "launch-site: NAME" comment of the two files is: file, line.
struct Site {
  std::string file;  // base name
  int64_t line = 0;
};
std::map<std::string, Site> launch_sites() {
  std::map<std::string, Site> sites;
  for (const char* file : {"python_app.py", "python_app_layers.py"}) {
    std::ifstream in(kAppDir / file);
    std::string text;
    for (int64_t line = 1; std::getline(in, text); ++line) {
      const std::string marker = "# launch-site: ";
      const size_t at = text.find(marker);
      if (at != std::string::npos) sites[text.substr(at + marker.size())] = {file, line};
    }
  }
  return sites;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

class PythonFramesTest : public TempDirTest {
 protected:
  std::map<std::string, std::string> env(bool agent) {
    std::map<std::string, std::string> e = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
    if (!agent) return e;
    e["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    e["BRICKPROF_OUTPUT"] = (dir_ / "out-%p").string();
    e["BRICKPROF_FORMATS"] = "json";
    return e;
  }
  // The one trace in the folder, as JSON.
  fs::path trace_file() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().extension() == ".json") files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files[0];
  }
  json load(const fs::path& file) {
    std::ifstream in(file);
    return json::parse(in);
  }
  // Runs the app plain and traced: same status and output.
  void run_app(const std::map<std::string, std::string>& traced_env,
               const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {PYTHON3, kApp};
    argv.insert(argv.end(), args.begin(), args.end());
    Result plain = run(argv, env(false));
    ASSERT_EQ(plain.exit_code(), 0) << plain.err;
    ASSERT_EQ(plain.out, "ok\n");
    Result traced = run(argv, traced_env);
    ASSERT_EQ(traced.status, plain.status) << traced.err;
    ASSERT_EQ(traced.out, plain.out);
  }
};

// GPU nodes by the site that launched them (by kernel name, or copy/memset).
std::string site_of(const json& n) {
  const std::string name = n["name"];
  if (n["kind"] == "transfer") return "upload";
  if (n["kind"] == "memset") return "clear";
  if (name == "norm_kernel") return n["grid"][0] == 5 ? "nogil" : "norm";
  if (name == "attention_kernel") return "attention";
  if (name == "mlp_kernel") return "mlp";
  return name;
}

TEST_F(PythonFramesTest, EachLaunchCarriesTheStackEndingAtItsLine) {
  run_app(env(true));
  const json t = load(trace_file());
  const std::map<std::string, Site> sites = launch_sites();
  ASSERT_EQ(sites.size(), 6u);
  ASSERT_TRUE(t.contains("python_frames"));
  const json& frames = t["python_frames"];
  const json& stacks = t["python_stacks"];
  std::map<std::string, int> seen;
  std::set<uint64_t> stack_ids;
  for (const json& n : t["nodes"]) {
    if (n["kind"] != "kernel" && n["kind"] != "transfer" && n["kind"] != "memset") continue;
    const std::string site = site_of(n);
    ++seen[site];
    ASSERT_TRUE(n.contains("python_stack")) << n.dump();
    const json& stack = stacks.at(n["python_stack"].get<size_t>());
    stack_ids.insert(n["python_stack"].get<uint64_t>());
    ASSERT_GE(stack.size(), 2u);
    const json& inner = frames.at(stack[0].get<size_t>());
    EXPECT_EQ(base_name(inner["file"]), sites.at(site).file) << n.dump();
    EXPECT_EQ(inner["line"], sites.at(site).line) << n.dump();
    const std::string function = site == "upload" || site == "clear" ? "main"
                                 : site == "nogil"                   ? "launch_without_gil"
                                                                     : site;
    EXPECT_EQ(inner["function"], function) << n.dump();
    // Outermost: the script's module code, or the thread's bootstrap.
    const json& outer = frames.at(stack.back().get<size_t>());
    if (site == "nogil") {
      EXPECT_EQ(base_name(outer["file"]), "threading.py");
    } else {
      EXPECT_EQ(outer["function"], "<module>");
      EXPECT_EQ(base_name(outer["file"]), "python_app.py");
    }
  }
  const int steps = 3;
  EXPECT_EQ(seen, (std::map<std::string, int>{{"norm", steps},
                                              {"attention", 2 * steps},
                                              {"mlp", steps},
                                              {"nogil", 1},
                                              {"upload", 1},
                                              {"clear", 1}}));
  // Interned: a loop's repeated launches share one stack per site; the
  // rest are the memory calls' (the buffer's allocation and free).
  EXPECT_EQ(stack_ids.size(), 6u);
  std::set<uint64_t> memory_stacks;
  for (const json& e : t.value("memory", json::array()))
    if (e.contains("python_stack")) memory_stacks.insert(e["python_stack"].get<uint64_t>());
  EXPECT_EQ(stacks.size(), 6u + memory_stacks.size());
}

TEST_F(PythonFramesTest, ViewsGroupTheWorkUnderItsFrames) {
  run_app(env(true));
  const fs::path file = trace_file();
  brickprof::Trace trace = brickprof::read_trace_file(file.string());
  const std::map<std::string, Site> sites = launch_sites();
  EXPECT_EQ(brickprof::group_by_python_frames(trace, 1), 15u);  // all, the GIL-less one too
  for (const brickprof::Node& n : trace.nodes) {
    const brickprof::GpuDetail* d = trace.detail(n);
    if (d == nullptr) continue;
    if (d->python_stack == brickprof::kNoPythonStack) {  // the context sync: no work launched
      EXPECT_EQ(n.kind, brickprof::NodeKind::kSync);
      EXPECT_EQ(n.parent, brickprof::kNoNode);
      continue;
    }
    ASSERT_NE(n.parent, brickprof::kNoNode);
    const brickprof::Node& scope = trace.nodes[n.parent];
    const brickprof::PythonFrame& f =
        trace.python_frames[trace.python_stacks[d->python_stack].front()];
    EXPECT_EQ(trace.name(scope), brickprof::python_frame_name(f));
    EXPECT_EQ(scope.kind, brickprof::NodeKind::kScope);
    EXPECT_EQ(scope.parent, brickprof::kNoNode);  // one frame deep
    EXPECT_LE(scope.start_ns, d->api_start_ns);
    EXPECT_GE(scope.end_ns, d->api_end_ns);
  }
  // The CLI's tree shows them under "python_app.py:LINE norm" and the like.
  Result tree = run({BRICKPROF_BIN, "report", file.string(), "--tree"}, {});
  ASSERT_EQ(tree.exit_code(), 0) << tree.err;
  for (const char* site : {"norm", "attention", "mlp", "nogil"}) {
    const Site& s = sites.at(site);
    const std::string function = std::string(site) == "nogil" ? "launch_without_gil" : site;
    EXPECT_NE(tree.out.find(s.file + ":" + std::to_string(s.line) + " " + function),
              std::string::npos)
        << site << "\n"
        << tree.out;
  }
  // Two frames deep: main's line above each launching line.
  Result deep =
      run({BRICKPROF_BIN, "report", file.string(), "--folded", "--python-frames", "2"}, {});
  ASSERT_EQ(deep.exit_code(), 0) << deep.err;
  EXPECT_NE(deep.out.find(":" + std::to_string(sites.at("mlp").line) + " mlp"), std::string::npos)
      << deep.out;
  EXPECT_NE(deep.out.find(" main;python_app_layers.py:"), std::string::npos) << deep.out;
  // The HTML page too, without asking.
  const fs::path page = dir_ / "page.html";
  Result html = run({BRICKPROF_BIN, "report", file.string(), "--html", page.string()}, {});
  ASSERT_EQ(html.exit_code(), 0) << html.err;
  const std::string norm = sites.at("norm").file + ":" + std::to_string(sites.at("norm").line);
  EXPECT_NE(brickprof::test::read_file(page.string()).find(norm + " norm"), std::string::npos);
  // Off: the work stays at the top.
  Result off = run({BRICKPROF_BIN, "report", file.string(), "--tree", "--python-frames", "0"}, {});
  ASSERT_EQ(off.exit_code(), 0) << off.err;
  EXPECT_EQ(off.out.find("python_app.py:"), std::string::npos) << off.out;
}

// The files the agent writes at exit group GPU work launched outside every
// scope under its innermost Python frame, as `brickprof report` does when
// it reads the JSON (which keeps the trace as recorded): byte for byte, with
// launches inside and outside scopes and runs of launches a scope breaks.
TEST_F(PythonFramesTest, ExitFilesSayWhatReportSays) {
  auto e = env(true);
  e["BRICKPROF_FORMATS"] = "json,tree,dot,folded,chrome,perfetto";
  e["BRICKPROF_OUTPUT"] = (dir_ / "out").string();
  Result r = run({PYTHON3, (kAppDir / "python_mixed.py").string()}, e);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  ASSERT_EQ(r.out, "ok\n");
  const std::string json = (dir_ / "out.json").string();
  const std::map<std::string, std::string> files = {{"tree", "out.tree.txt"},
                                                    {"dot", "out.dot"},
                                                    {"folded", "out.folded"},
                                                    {"chrome", "out.trace.json"},
                                                    {"perfetto", "out.pftrace"}};
  for (const auto& [format, file] : files) {
    const fs::path reported = dir_ / ("report." + format);
    Result rep = run({BRICKPROF_BIN, "report", json, "--" + format, "-o", reported.string()}, {});
    ASSERT_EQ(rep.exit_code(), 0) << rep.err;
    EXPECT_EQ(brickprof::test::read_file((dir_ / file).string()),
              brickprof::test::read_file(reported.string()))
        << format;
  }
  // Grouped: the loop's line holds its kernels; a scope broke the main
  // thread's run of them in two; the scopes keep their own.
  const std::string tree = brickprof::test::read_file((dir_ / "out.tree.txt").string());
  const size_t line = tree.find("python_mixed.py:28 launch");
  ASSERT_NE(line, std::string::npos) << tree;
  const std::string first = tree.substr(line, tree.find('\n', line) - line);
  EXPECT_NE(first.find("×2"), std::string::npos) << first;  // main's runs: before and after
  EXPECT_NE(tree.find("│   │   └── mixed_kernel <<<1,"), std::string::npos) << tree;  // under it
  EXPECT_NE(tree.find("│   ├── prefill"), std::string::npos) << tree;
  // Off: report --python-frames 0 shows the work at the top.
  Result off = run({BRICKPROF_BIN, "report", json, "--tree", "--python-frames", "0"}, {});
  ASSERT_EQ(off.exit_code(), 0) << off.err;
  EXPECT_EQ(off.out.find("python_mixed.py:"), std::string::npos) << off.out;
}

TEST_F(PythonFramesTest, DepthZeroReadsNoFrames) {
  auto e = env(true);
  e["BRICKPROF_PYTHON_DEPTH"] = "0";
  run_app(e);
  const json t = load(trace_file());
  EXPECT_FALSE(t.contains("python_frames"));
  for (const json& n : t["nodes"]) EXPECT_FALSE(n.contains("python_stack")) << n.dump();
}

// Outside capture windows the launch records are dropped: their stacks are
// not read either (nor interned: the table holds only the window's).
TEST_F(PythonFramesTest, NoStacksReadOutsideCaptureWindows) {
  auto e = env(true);
  e["BRICKPROF_CAPTURE"] = "cuda-profiler-api";
  run_app(e, {"profile-mlp"});
  const json t = load(trace_file());
  const Site mlp = launch_sites().at("mlp");
  ASSERT_TRUE(t.contains("python_stacks"));
  ASSERT_EQ(t["python_stacks"].size(), 1u) << t["python_stacks"].dump();
  const json& inner = t["python_frames"].at(t["python_stacks"][0][0].get<size_t>());
  EXPECT_EQ(base_name(inner["file"]), mlp.file);
  EXPECT_EQ(inner["line"], mlp.line);
  size_t kernels = 0;
  for (const json& n : t["nodes"]) {
    if (n["kind"] != "kernel") continue;
    ++kernels;
    EXPECT_EQ(n["name"], "mlp_kernel");
    EXPECT_EQ(n["python_stack"], 0);
  }
  EXPECT_EQ(kernels, 3u);
}

// A program without Python: one failed lookup of Py_IsInitialized at
// start, none per launch, and the same records as with frames off.
// A fork child finds the Python stack table's lock free although a thread
// of the parent held it at fork, adding a stack (11 of 40 children hung
// before the child reset it).
TEST_F(PythonFramesTest, AForkChildFindsTheStackTableFree) {
  const std::vector<std::string> argv = {PYTHON3, (kAppDir / "python_fork.py").string(), "30"};
  Result traced = run(argv, env(true));
  EXPECT_EQ(traced.exit_code(), 0) << traced.err;
  EXPECT_EQ(traced.out, "ok\n");
}

TEST_F(PythonFramesTest, ProgramWithoutPythonIsUnaffected) {
  auto e = env(true);
  e["LD_DEBUG"] = "symbols";
  e["LD_DEBUG_OUTPUT"] = (dir_ / "ld").string();
  Result r = run({FAKE_GPU_APP, fake_gpu_app::kMany, "50"}, e);
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  std::map<std::string, int> lookups;  // Py* symbol -> lookups (each starts at the program)
  for (const auto& entry : fs::directory_iterator(dir_)) {
    if (entry.path().filename().string().rfind("ld.", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::string line;
    const std::string program_lookup = std::string("lookup in file=") + FAKE_GPU_APP + " ";
    while (std::getline(in, line)) {
      const size_t at = line.find("symbol=Py");
      if (at == std::string::npos || line.find(program_lookup) == std::string::npos) continue;
      lookups[line.substr(at + 7, line.find(';', at) - at - 7)]++;
    }
    fs::remove(entry.path());
  }
  EXPECT_EQ(lookups, (std::map<std::string, int>{{"Py_IsInitialized", 1}}));
  const json with = load(trace_file());
  for (const auto& entry : fs::directory_iterator(dir_)) fs::remove(entry.path());
  auto off = env(true);
  off["BRICKPROF_PYTHON_DEPTH"] = "0";
  ASSERT_EQ(run({FAKE_GPU_APP, fake_gpu_app::kMany, "50"}, off).exit_code(), 0);
  const json without = load(trace_file());
  EXPECT_FALSE(with.contains("python_frames"));
  ASSERT_EQ(with["nodes"].size(), without["nodes"].size());
  for (size_t i = 0; i < with["nodes"].size(); ++i) {
    const json& a = with["nodes"][i];
    const json& b = without["nodes"][i];
    EXPECT_FALSE(a.contains("python_stack"));
    EXPECT_EQ(a["kind"], b["kind"]);
    EXPECT_EQ(a["name"], b["name"]);
    EXPECT_EQ(a["parent"], b["parent"]);
  }
}

}  // namespace
