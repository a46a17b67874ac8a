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

}  // namespace
}  // namespace brickprof
