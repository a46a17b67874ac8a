// Python frames of memory calls, end to end on the fake driver:
// python_memory.py allocates and frees device memory and pins host memory
// through ctypes.CDLL (the GIL released in each call), and every memory
// event of its trace carries the stack that ends at the line that made it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;

namespace {

const fs::path kApp = fs::path(PYTHON_APP_DIR) / "python_memory.py";

// Each "memory-site: NAME" comment's line.
std::map<std::string, int64_t> memory_sites() {
  std::map<std::string, int64_t> sites;
  std::ifstream in(kApp);
  std::string text;
  for (int64_t line = 1; std::getline(in, text); ++line) {
    const std::string marker = "# memory-site: ";
    const size_t at = text.find(marker);
    if (at != std::string::npos) sites[text.substr(at + marker.size())] = line;
  }
  return sites;
}

class PythonMemoryTest : public TempDirTest {};

TEST_F(PythonMemoryTest, EachAllocationCarriesTheStackEndingAtItsLine) {
  const std::map<std::string, std::string> plain_env = {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
  std::map<std::string, std::string> env = plain_env;
  env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
  env["BRICKPROF_OUTPUT"] = (dir_ / "out").string();
  env["BRICKPROF_FORMATS"] = "json";
  const Result plain = run({PYTHON3, kApp.string()}, plain_env);
  ASSERT_EQ(plain.exit_code(), 0) << plain.err;
  ASSERT_EQ(plain.out, "ok\n");
  const Result traced = run({PYTHON3, kApp.string()}, env);
  ASSERT_EQ(traced.status, plain.status) << traced.err;
  ASSERT_EQ(traced.out, plain.out);

  const fs::path file = dir_ / "out.json";
  ASSERT_NO_THROW(brickprof::read_trace_file(file.string()));
  std::ifstream in(file);
  const json t = json::parse(in);
  const std::map<std::string, int64_t> sites = memory_sites();
  ASSERT_EQ(sites.size(), 5u);
  ASSERT_TRUE(t.contains("memory"));
  std::map<std::string, int> seen;  // by site
  for (const json& e : t["memory"]) {
    ASSERT_TRUE(e.contains("python_stack")) << e.dump();
    const json& stack = t["python_stacks"].at(e["python_stack"].get<size_t>());
    const json& inner = t["python_frames"].at(stack[0].get<size_t>());
    EXPECT_EQ(fs::path(inner["file"].get<std::string>()).filename(), "python_memory.py");
    std::string site;
    for (const auto& [name, line] : sites)
      if (inner["line"] == line) site = name;
    ASSERT_FALSE(site.empty()) << "no memory-site at line " << inner["line"] << ": " << e.dump();
    ++seen[site];
    const std::string function = site == "weights"   ? "load_weights"
                                 : site == "cache"   ? "make_cache"
                                 : site == "free"    ? "release"
                                                     : "main";
    EXPECT_EQ(inner["function"], function) << e.dump();
    EXPECT_EQ(e["op"], site == "free" || site == "free_host" ? "free" : "alloc") << e.dump();
    EXPECT_EQ(t["python_frames"].at(stack.back().get<size_t>())["function"], "<module>");
  }
  EXPECT_EQ(seen, (std::map<std::string, int>{
                      {"weights", 3}, {"cache", 1}, {"free", 4}, {"pinned", 1}, {"free_host", 1}}));
}

}  // namespace
