// Device memory on the fake driver, end to end: device_memory_app
// allocates per layer, leaks in one scope each decode step, allocates and
// frees from a pool, maps VMM memory, pins and registers host memory, uses
// managed memory and finally asks for more than the device has. Its trace
// must hold every memory call it made, in order, each with its bytes,
// address, result and the scope it was made in; the program's output and
// status are the same with and without the agent; and with
// BRICKPROF_DUMP_ON=oom a program killed after the failure still leaves its
// trace.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/agent/cupti/device_memory_app.h"
#include "tests/fakes/cuda_driver/fake_cuda.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;

namespace {

constexpr uint64_t kDeviceMemory = 1ull << 30;  // FAKE_CUDA_DEVICE_MEMORY here

// One line of the app's list (device_memory_app.h).
struct Call {
  std::string api, op, source;
  uint64_t address = 0, bytes = 0;
  int result = 0;
  std::string scope;  // "-": outside every scope
};

std::vector<Call> read_calls(const fs::path& file) {
  std::vector<Call> calls;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    Call c;
    fields >> c.api >> c.op >> c.source >> c.address >> c.bytes >> c.result;
    std::getline(fields >> std::ws, c.scope);
    calls.push_back(c);
  }
  return calls;
}

class DeviceMemoryTest : public TempDirTest {
 protected:
  std::map<std::string, std::string> fake_env() const {
    return {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR},
            {fake_cuda::kEnvDeviceMemory, std::to_string(kDeviceMemory)}};
  }
  std::map<std::string, std::string> agent_env(const std::string& dump_on = "exit") const {
    auto env = fake_env();
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / "out").string();
    env["BRICKPROF_FORMATS"] = "json";
    env["BRICKPROF_DUMP_ON"] = dump_on;
    return env;
  }
  // The app with and without the agent: the same status and output.
  Result run_both(const char* end, const std::string& dump_on) {
    const std::vector<std::string> plain_argv = {DEVICE_MEMORY_APP, end,
                                                 (dir_ / "plain.calls").string()};
    Result plain = run(plain_argv, fake_env());
    EXPECT_EQ(plain.out, device_memory_app::kStdout) << plain.err;
    Result traced = run({DEVICE_MEMORY_APP, end, (dir_ / "calls").string()}, agent_env(dump_on));
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);
    return traced;
  }
  json load_trace() {
    const fs::path file = dir_ / "out.json";
    if (!fs::exists(file)) return json();
    EXPECT_NO_THROW(brickprof::read_trace_file(file.string()));
    std::ifstream in(file);
    return json::parse(in);
  }
};

std::string scope_name(const json& t, const json& event) {
  if (!event.contains("scope") || event["scope"].is_null()) return "-";
  const json& node = t["nodes"][event["scope"].get<size_t>()];
  return node["name"].get<std::string>();
}

uint64_t hex(const json& v) { return std::stoull(v.get<std::string>(), nullptr, 16); }

// Every call of the list, in order, and nothing else. The pools' reserve,
// from CUPTI's records, is no call's (memory_records_test holds it).
void expect_events_are(const json& t, const std::vector<Call>& calls) {
  ASSERT_TRUE(t.contains("memory")) << "no memory section";
  json events = json::array();
  for (const json& e : t["memory"])
    if (e["source"] != "pool_reserve") events.push_back(e);
  ASSERT_EQ(events.size(), calls.size()) << events.dump(1);
  const json thread = events[0]["thread"];
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& e = events[i];
    const Call& c = calls[i];
    SCOPED_TRACE(e.dump() + " vs " + c.api + " " + c.scope);
    EXPECT_EQ(e["api"], c.api);
    EXPECT_EQ(e["op"], c.op);
    EXPECT_EQ(e["source"], c.source);
    EXPECT_EQ(hex(e["address"]), c.address);
    EXPECT_EQ(e.value("bytes", uint64_t{0}), c.bytes);
    EXPECT_EQ(e.value("result", 0), c.result);
    EXPECT_EQ(scope_name(t, e), c.scope);
    EXPECT_EQ(e["thread"], thread);
    const bool host = c.source == "pinned" || c.source == "registered";
    if (host) {
      EXPECT_NE(e["device"], 0);
    } else {
      EXPECT_EQ(e["device"], 0);
    }
    if (i > 0) {
      EXPECT_GE(e["t"].get<int64_t>(), events[i - 1]["t"].get<int64_t>());
    }
  }
}

TEST_F(DeviceMemoryTest, EveryCallIsInTheTraceUnderItsScope) {
  const Result r = run_both(device_memory_app::kExit, "exit");
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  const json t = load_trace();
  ASSERT_FALSE(t.is_null());
  ASSERT_EQ(t["devices"].size(), 1u);
  EXPECT_EQ(t["devices"][0]["memory_bytes"], kDeviceMemory);
  const std::vector<Call> calls = read_calls(dir_ / "calls");
  // 2 host, 3 layers, 3 per step, 4 VMM, 2 managed, the failure, 5 frees at the end.
  ASSERT_EQ(calls.size(), 2u + 3 + 3 * device_memory_app::kSteps + 4 + 2 + 1 + 5);
  expect_events_are(t, calls);
  // The stream-ordered calls name their stream; the failure says why.
  for (const json& e : t["memory"]) {
    if (e["source"] == "async") {
      EXPECT_NE(e.value("stream", uint64_t{0}), 0u) << e.dump();
    }
    if (e.value("result", 0) != 0) {
      EXPECT_EQ(e["result"], 2) << "CUDA_ERROR_OUT_OF_MEMORY";
    }
  }
}

TEST_F(DeviceMemoryTest, UnderscoreExitAfterTheFailureLeavesTheWholeTrace) {
  const Result r = run_both(device_memory_app::kUnderscoreExit, "oom");
  EXPECT_EQ(r.exit_code(), 3) << r.err;
  const json t = load_trace();
  ASSERT_FALSE(t.is_null());
  expect_events_are(t, read_calls(dir_ / "calls"));
}

TEST_F(DeviceMemoryTest, KilledAfterTheFailureLeavesTheTraceWrittenAtIt) {
  // Without BRICKPROF_DUMP_ON=oom, SIGKILL leaves nothing: no exit path runs.
  Result r = run_both(device_memory_app::kKill, "exit");
  ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL) << r.status;
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));

  r = run_both(device_memory_app::kKill, "oom");
  ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL) << r.status;
  const json t = load_trace();
  ASSERT_FALSE(t.is_null()) << "no trace written at the failure";
  expect_events_are(t, read_calls(dir_ / "calls"));
  bool said = false;
  for (const json& w : t["diagnostics"]["warnings"])
    said |= w.get<std::string>().find("out-of-memory") != std::string::npos;
  EXPECT_TRUE(said) << t["diagnostics"].dump();
}

}  // namespace
