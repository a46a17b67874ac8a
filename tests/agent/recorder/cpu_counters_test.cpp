// BRICKPROF_CPU_COUNTERS in real processes: the software events end to end
// (every machine offers them), the hardware mode's "no PMU" line where the
// machine has none, the refusal a container or a strict perf_event_paranoid
// gives, and a bad value. The program's output and exit code never change.
#include <errno.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/support/preload_fixture.h"
#include "tests/support/run_program.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using brickprof::test::Result;
using brickprof::test::run;

class CpuCountersTest : public brickprof::test::PreloadFixture {
 protected:
  // The program with the agent in `mode`: same status and output as without.
  Result run_with(const std::string& mode, const std::vector<std::string>& argv) {
    Result plain = run(argv, {});
    auto env = agent_env();
    env["BRICKPROF_CPU_COUNTERS"] = mode;
    Result traced = run(argv, env);
    EXPECT_EQ(traced.status, plain.status);
    EXPECT_EQ(traced.out, plain.out);
    return traced;
  }
  // Each node's counters by node id.
  static std::map<uint64_t, std::vector<uint64_t>> counters_of(const json& t) {
    std::map<uint64_t, std::vector<uint64_t>> by_node;
    for (const json& n : t["cpu_counters"]["nodes"])
      by_node[n["node"].get<uint64_t>()] = n["values"].get<std::vector<uint64_t>>();
    return by_node;
  }
  std::string report(const std::string& view, const fs::path& trace) {
    Result r = run({BRICKPROF_BIN, "report", "--" + view, trace.string()}, {});
    EXPECT_EQ(r.exit_code(), 0) << r.err;
    return r.out;
  }
};

bool machine_has_cpu_pmu() { return fs::exists("/sys/bus/event_source/devices/cpu"); }

TEST_F(CpuCountersTest, SoftwareEventsPerScopeNestAndAreRead) {
  Result r = run_with("software", {CPU_COUNTERS_APP, "nested"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  EXPECT_EQ(t["diagnostics"]["cpu_counters"],
            "software: task-clock, page-faults, context-switches");
  ASSERT_EQ(t["cpu_counters"]["events"],
            json::array({"task-clock", "page-faults", "context-switches"}));
  const auto by_node = counters_of(t);
  const json& nodes = t["nodes"];
  int outers = 0;
  std::map<uint64_t, uint64_t> inner_sum;  // task-clock of each outer's inners
  std::set<uint64_t> threads;
  for (size_t id = 0; id < nodes.size(); ++id) {
    const json& n = nodes[id];
    if (n["kind"] != "brick") continue;
    ASSERT_TRUE(by_node.count(id)) << "no counters on " << n["name"];
    const uint64_t task_clock = by_node.at(id)[0];
    EXPECT_GT(task_clock, 0u) << n["name"];
    threads.insert(n["thread"].get<uint64_t>());
    if (n["name"] == "outer") ++outers;
    if (n["name"] == "inner") inner_sum[n["parent"].get<uint64_t>()] += task_clock;
  }
  EXPECT_EQ(outers, 2);
  EXPECT_EQ(threads.size(), 2u);  // the worker opened a group of its own
  ASSERT_EQ(inner_sum.size(), 2u);
  // The outer scope's counts span its inners' (read before the first
  // opens, after the last closes, on the same thread): never fewer.
  for (const auto& [outer, sum] : inner_sum) EXPECT_GE(by_node.at(outer)[0], sum);

  const fs::path file = outputs()[0];
  const std::string view = report("cpu-counters", file);
  EXPECT_NE(view.find("CPU counters: software: task-clock"), std::string::npos) << view;
  EXPECT_NE(view.find("inner"), std::string::npos) << view;
  EXPECT_NE(view.find("On CPU"), std::string::npos) << view;
  EXPECT_NE(report("summary", file).find("CPU counters: software"), std::string::npos);
}

TEST_F(CpuCountersTest, ForkedChildCountsWithItsOwnGroup) {
  Result r = run_with("software", {CPU_COUNTERS_APP, "fork"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  auto files = outputs();
  ASSERT_EQ(files.size(), 2u);
  int seen = 0;
  for (const fs::path& f : files) {
    json t = load(f);
    const auto by_node = counters_of(t);
    for (size_t id = 0; id < t["nodes"].size(); ++id) {
      const std::string name = t["nodes"][id]["name"];
      if (name != "child" && name != "parent") continue;
      ++seen;
      ASSERT_TRUE(by_node.count(id)) << name;
      EXPECT_GT(by_node.at(id)[0], 0u) << name;
    }
  }
  EXPECT_EQ(seen, 2);
}

// This VM has no `cpu` PMU: perf_event_open(PERF_TYPE_HARDWARE) fails with
// ENOENT. The trace says so in one line; nothing else changes.
TEST_F(CpuCountersTest, HardwareWithoutPmuSaysSoAndChangesNothing) {
  Result r = run_with("on", {CPU_COUNTERS_APP, "nested"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  const std::string status = t["diagnostics"]["cpu_counters"];
  if (machine_has_cpu_pmu()) {
    EXPECT_EQ(status.rfind("on: cycles, instructions", 0), 0u) << status;
    GTEST_SKIP() << "this machine has a PMU: " << status;
  }
  EXPECT_EQ(status,
            "none (no PMU: perf_event_open(cycles) failed: ENOENT, No such file or directory)");
  EXPECT_FALSE(t.contains("cpu_counters"));
  EXPECT_NE(report("summary", outputs()[0]).find("CPU counters: none (no PMU: "),
            std::string::npos);
}

// A container's seccomp profile, or perf_event_paranoid 3 for an
// unprivileged process: perf_event_open fails with EACCES/EPERM.
TEST_F(CpuCountersTest, RefusedPerfEventOpenSaysWhyAndChangesNothing) {
  Result r =
      run_with("software", {SECCOMP_REFUSE, std::to_string(EACCES), CPU_COUNTERS_APP, "nested"});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  EXPECT_EQ(r.err, "");
  json t = load_only_output();
  const std::string status = t["diagnostics"]["cpu_counters"];
  EXPECT_EQ(status.rfind("none (not permitted (kernel.perf_event_paranoid is ", 0), 0u) << status;
  EXPECT_NE(status.find("perf_event_open(task-clock) failed: EACCES"), std::string::npos) << status;
  EXPECT_FALSE(t.contains("cpu_counters"));
  EXPECT_GT(t["nodes"].size(), 0u);  // the scopes are recorded as ever
}

TEST_F(CpuCountersTest, BadValueWarnsOnceAndKeepsThemOff) {
  auto env = agent_env();
  env["BRICKPROF_CPU_COUNTERS"] = "sometimes";
  Result r = run({CPU_COUNTERS_APP, "nested"}, env);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("BRICKPROF_CPU_COUNTERS='sometimes' is not valid; using off (valid: off, "
                       "on, software)"),
            std::string::npos)
      << r.err;
  json t = load_only_output();
  EXPECT_FALSE(t["diagnostics"].contains("cpu_counters"));
  EXPECT_FALSE(t.contains("cpu_counters"));
}

// brickprof run --cpu-counters sets the variable for the program.
TEST_F(CpuCountersTest, RunFlagSetsTheMode) {
  Result r = run({BRICKPROF_BIN, "run", "--cpu-counters", "software", "--formats", "json",
                  "--output", (dir_ / "run").string(), "--", CPU_COUNTERS_APP, "nested"},
                 {{"BRICKPROF_AGENT", BRICKPROF_AGENT_PATH}});
  ASSERT_EQ(r.exit_code(), 0) << r.err;
  json t = load_only_output();
  EXPECT_EQ(t["diagnostics"]["cpu_counters"].get<std::string>().rfind("software: ", 0), 0u);
  EXPECT_GT(t["cpu_counters"]["nodes"].size(), 0u);
}

}  // namespace
