// Chrome trace export, parsed back with nlohmann_json: counts, tracks,
// nesting, times and flows.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/analyses/trace_merge.h"
#include "tests/support/test_traces.h"
#include "tests/support/trace_builder.h"
#include "trace/formats/chrome.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

using nlohmann::json;

json export_small(Trace& t) {
  std::ostringstream out;
  write_format("chrome", t, out);
  return json::parse(out.str());
}

int64_t to_ns(const json& us) { return std::llround(us.get<double>() * 1000.0); }

TEST(ChromeExport, ParsesWithOneSlicePerNode) {
  Trace t = test::small_trace();
  json doc = export_small(t);
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  std::map<std::string, int> phases;
  for (const json& e : doc["traceEvents"]) phases[e["ph"].get<std::string>()]++;
  EXPECT_EQ(phases["X"], static_cast<int>(t.nodes.size()));
  // Every GPU node in the fixture has a CPU parent: one flow pair each.
  EXPECT_EQ(phases["s"], 6);
  EXPECT_EQ(phases["f"], 6);
  // process name + sort index for CPU and GPU 0, thread 100, stream 7.
  EXPECT_EQ(phases["M"], 6);
}

TEST(ChromeExport, CaptureWindowsHaveATrack) {
  Trace t = test::small_trace();
  t.diagnostics.capture_windows = {{1000, 3500}, {9000, 9001}};
  json doc = export_small(t);
  std::vector<json> windows;
  bool named = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["tid"] != kCaptureTid) continue;
    if (e["ph"] == "M") named = e["args"]["name"] == "capture windows" && e["pid"] == 4242;
    if (e["ph"] == "X") windows.push_back(e);
  }
  EXPECT_TRUE(named);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0]["name"], "capture window 1");
  EXPECT_EQ(to_ns(windows[0]["ts"]), 1000);
  EXPECT_EQ(to_ns(windows[0]["dur"]), 2500);
  EXPECT_EQ(to_ns(windows[1]["dur"]), 1);
}

TEST(ChromeExport, TracksTimesAndArgs) {
  Trace t = test::small_trace();
  json doc = export_small(t);
  std::map<int64_t, json> slice;  // by node id
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;
  std::map<int64_t, std::string> process_names;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") slice[e["args"]["node"].get<int64_t>()] = e;
    if (e["ph"] == "M" && e["name"] == "thread_name")
      thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
  }
  EXPECT_EQ(process_names[4242], "bricklayer");
  EXPECT_EQ(process_names[kGpuPidBase], "GPU 0 (Test GPU)");
  EXPECT_EQ((thread_names[{4242, 100}]), "main");
  EXPECT_EQ((thread_names[{kGpuPidBase, 7}]), "Stream 7");

  for (uint32_t id = 0; id < t.nodes.size(); ++id) {
    const Node& n = t.nodes[id];
    const json& e = slice.at(id);
    EXPECT_EQ(to_ns(e["ts"]), n.start_ns) << id;
    EXPECT_EQ(to_ns(e["dur"]), n.duration_ns()) << id;
    bool gpu = is_gpu_kind(n.kind);
    EXPECT_EQ(e["pid"].get<int64_t>(), gpu ? kGpuPidBase : 4242) << id;
    EXPECT_EQ(e["tid"].get<int64_t>(), gpu ? 7 : 100) << id;
    // CPU slices nest: each lies inside its CPU parent on the same track.
    if (!gpu && n.parent != kNoNode) {
      const json& p = slice.at(n.parent);
      EXPECT_EQ(p["tid"], e["tid"]);
      EXPECT_LE(to_ns(p["ts"]), to_ns(e["ts"]));
      EXPECT_GE(to_ns(p["ts"]) + to_ns(p["dur"]), to_ns(e["ts"]) + to_ns(e["dur"]));
    }
  }
  EXPECT_EQ(slice[7]["name"], "attention<float, 128>");
  EXPECT_EQ(slice[7]["args"]["grid"], json::array({8, 4, 1}));
  EXPECT_EQ(slice[7]["args"]["smem"], 2048);
  EXPECT_EQ(slice[1]["args"]["category"], "Norm");
  EXPECT_EQ(slice[1]["args"]["elements"], 4096);
  EXPECT_EQ(slice[8]["args"]["bytes"], 4194304);
  EXPECT_EQ(slice[8]["args"]["direction"], "H2D");
  EXPECT_EQ(slice[12]["name"], "custom \"quoted\" ; name");
  EXPECT_EQ(to_ns(slice[7]["dur"]), 750);  // sub-microsecond precision kept
}

TEST(ChromeExport, FlowsGoFromLaunchingScopeToKernel) {
  Trace t = test::small_trace();
  json doc = export_small(t);
  std::map<uint64_t, json> starts, finishes;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "s") starts[e["id"]] = e;
    if (e["ph"] == "f") finishes[e["id"]] = e;
  }
  // Kernel 4 (correlation 2) was launched at api_start 120µs inside brick 3.
  ASSERT_TRUE(starts.count(2) && finishes.count(2));
  EXPECT_EQ(to_ns(starts[2]["ts"]), 120000);
  EXPECT_EQ(starts[2]["tid"], 100);
  EXPECT_EQ(finishes[2]["pid"], kGpuPidBase);
  EXPECT_EQ(to_ns(finishes[2]["ts"]), 150000);
  EXPECT_EQ(finishes[2]["bp"], "e");
  // Without an API time the flow starts where the scope starts.
  EXPECT_EQ(to_ns(starts[1]["ts"]), 10000);
}

TEST(ChromeExport, LargeTimestampsKeepNanoseconds) {
  Trace t;
  const int64_t start = 987654321012345;  // ~11 days of CLOCK_MONOTONIC
  test::add_node(t, {.name = "late", .start_ns = start, .end_ns = start + 1001});
  json doc = export_small(t);
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_EQ(std::llround(e["ts"].get<double>() * 1000.0), start);
    EXPECT_EQ(to_ns(e["dur"]), 1001);
  }
}

// A merged trace shows each source process as its own Chrome process, even
// when the sources recorded the same pid (two hosts, or one file twice):
// every CPU slice sits in the process of the source its thread came from.
TEST(ChromeExport, MergedSourcesAreSeparateProcesses) {
  Trace a = test::small_trace(), b = test::small_trace();
  a.process.rank = 0;
  b.process.rank = 1;
  Trace merged = merge_traces({a, b});
  ASSERT_EQ(merged.sources.size(), 2u);
  json doc = export_small(merged);
  std::map<int64_t, std::string> process_names;
  std::map<int64_t, int> cpu_slices;
  for (const json& e : doc["traceEvents"]) {
    int64_t pid = e["pid"].get<int64_t>();
    if (e["ph"] == "M" && e["name"] == "process_name")
      process_names[pid] = e["args"]["name"].get<std::string>();
    bool gpu = pid >= kGpuPidBase && pid < kSourcePidBase;
    if (e["ph"] == "X" && !gpu) cpu_slices[pid]++;
  }
  ASSERT_EQ(cpu_slices.size(), 2u);
  EXPECT_EQ(cpu_slices.begin()->second, cpu_slices.rbegin()->second);
  for (const auto& [pid, count] : cpu_slices) {
    EXPECT_EQ(process_names.count(pid), 1u) << pid;
  }
  EXPECT_NE(process_names[cpu_slices.begin()->first], process_names[cpu_slices.rbegin()->first]);
}

MemoryEvent memory_event(MemoryOp op, MemorySource source, uint32_t device, uint64_t address,
                         uint64_t bytes, int64_t t) {
  MemoryEvent e;
  e.op = op;
  e.source = source;
  e.device = device;
  e.address = address;
  e.bytes = bytes;
  e.time_ns = t;
  e.thread = 100;
  return e;
}

// Each memory account's live bytes are a counter track on its device's
// process ("ph":"C", one sample per change): frees pair by address,
// failed calls and unpaired frees add no sample; a GPU with memory but no
// GPU work (device 3) gets a process name; host pinned memory is on the
// CPU process.
TEST(ChromeExport, MemoryCounters) {
  Trace t = test::small_trace();
  t.memory = {
      memory_event(MemoryOp::kAlloc, MemorySource::kDevice, 0, 0x10, 1000, 1500),
      memory_event(MemoryOp::kAlloc, MemorySource::kAsync, 0, 0x20, 500, 2000),
      memory_event(MemoryOp::kFree, MemorySource::kDevice, 0, 0x10, 0, 2500),
      memory_event(MemoryOp::kFree, MemorySource::kDevice, 0, 0x99, 0, 2600),  // unpaired
      memory_event(MemoryOp::kAlloc, MemorySource::kDevice, 0, 0, 1 << 30, 2700),
      memory_event(MemoryOp::kAlloc, MemorySource::kPinned, kHostDeviceId, 0x30, 64, 3000),
      memory_event(MemoryOp::kAlloc, MemorySource::kDevice, 3, 0x40, 7, 3500),
  };
  t.memory[4].result = 2;  // out of memory: nothing changed
  json doc = export_small(t);
  std::map<std::string, std::vector<std::pair<int64_t, uint64_t>>> counters;
  std::map<std::string, int64_t> pid_of;
  std::map<int64_t, std::string> process_names;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name")
      process_names[e["pid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    if (e["ph"] != "C") continue;
    const std::string name = e["name"].get<std::string>();
    counters[name].push_back({to_ns(e["ts"]), e["args"]["bytes"].get<uint64_t>()});
    pid_of[name] = e["pid"].get<int64_t>();
  }
  using Samples = std::vector<std::pair<int64_t, uint64_t>>;
  EXPECT_EQ(counters["GPU 0 device memory"], (Samples{{1500, 1000}, {2000, 1500}, {2500, 500}}));
  EXPECT_EQ(counters["host pinned memory"], (Samples{{3000, 64}}));
  EXPECT_EQ(counters["GPU 3 device memory"], (Samples{{3500, 7}}));
  EXPECT_EQ(pid_of["GPU 0 device memory"], kGpuPidBase);
  EXPECT_EQ(pid_of["host pinned memory"], 4242);
  EXPECT_EQ(pid_of["GPU 3 device memory"], kGpuPidBase + 3);
  EXPECT_EQ(process_names[kGpuPidBase + 3], "GPU 3");
  EXPECT_EQ(counters.size(), 3u);
}

// No memory events: no counter and no process beyond the trace's own.
TEST(ChromeExport, NoMemoryNoCounters) {
  Trace t = test::small_trace();
  json doc = export_small(t);
  for (const json& e : doc["traceEvents"]) EXPECT_NE(e["ph"], "C");
}

}  // namespace
}  // namespace brickprof
