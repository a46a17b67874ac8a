// GPU idle time on hand-built traces: busy union across streams, each gap
// split at the next operation's API call, host waits charged to the
// innermost scope of the launching thread.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/analyses/gpu_idle.h"
#include "analysis/analyses/trace_scope.h"
#include "test_util.h"
#include "tests/support/trace_builder.h"
#include "trace/model/recorded.h"

namespace brickprof {
namespace {

constexpr int64_t us = 1000;

test::NodeSpec node(NodeKind kind, const char* name, uint32_t parent, uint32_t thread,
                    int64_t start, int64_t end) {
  return {.kind = kind,
          .name = name,
          .parent = parent,
          .thread = thread,
          .start_ns = start * us,
          .end_ns = end * us};
}

uint32_t scope(Trace& t, NodeKind kind, const char* name, uint32_t parent, uint32_t thread,
               int64_t start, int64_t end) {
  return test::add_node(t, node(kind, name, parent, thread, start, end));
}

uint32_t op(Trace& t, NodeKind kind, const char* name, uint32_t parent, uint32_t thread,
            uint32_t device, uint32_t stream, int64_t api, int64_t start, int64_t end) {
  GpuDetail d;
  d.device = device;
  d.stream = stream;
  d.api_start_ns = api * us;
  d.api_end_ns = api ? (api + 1) * us : 0;
  return test::add_gpu_node(t, node(kind, name, parent, thread, start, end), d);
}

// Thread 7: Layer 0 [0,100] holding GateProjection [10,30] and Sampling
// [60,90] (µs). Device 0: k1 [20,40] and k2 [35,50] on two streams (one busy
// stretch), k3 [55,60] issued at 52, k4 [95,100] issued at 92, k5 [96,99]
// beside it, a copy [110,120] with no API time; a sync that is not GPU work.
Trace one_device() {
  Trace t;
  t.devices.push_back(Device{0, "Test GPU", 1, 0, 0, 0, 0, 0, ""});
  uint32_t layer = scope(t, NodeKind::kLayer, "Layer 0", kNoNode, 7, 0, 100);
  uint32_t gate = scope(t, NodeKind::kBrick, "GateProjection", layer, 7, 10, 30);
  uint32_t sampling = scope(t, NodeKind::kScope, "Sampling", layer, 7, 60, 90);
  op(t, NodeKind::kKernel, "k1", gate, 7, 0, 1, 12, 20, 40);
  op(t, NodeKind::kKernel, "k2", gate, 7, 0, 2, 25, 35, 50);
  op(t, NodeKind::kKernel, "k3", layer, 7, 0, 1, 52, 55, 60);
  op(t, NodeKind::kKernel, "k4", layer, 7, 0, 1, 92, 95, 100);
  op(t, NodeKind::kKernel, "k5", layer, 7, 0, 2, 93, 96, 99);
  op(t, NodeKind::kTransfer, "memcpy DtoH", layer, 7, 0, 1, 0, 110, 120);
  op(t, NodeKind::kSync, "cuStreamSynchronize", sampling, 7, 0, 1, 60, 60, 90);
  return t;
}

TEST(GpuIdle, BusyUnionAndGapsSplitAtTheApiCall) {
  GpuIdleReport r = analyze_gpu_idle(one_device());
  ASSERT_EQ(r.devices.size(), 1u);
  const DeviceIdle& d = r.devices[0];
  EXPECT_EQ(d.name, "Test GPU");
  EXPECT_EQ(d.operations, 6u);  // the sync is not GPU work
  EXPECT_EQ(d.span_ns, 100 * us);
  EXPECT_EQ(d.busy_ns, (30 + 5 + 5 + 10) * us);
  EXPECT_EQ(d.kernel_busy_ns, (30 + 5 + 5) * us);
  EXPECT_EQ(d.idle_ns(), 50 * us);
  EXPECT_EQ(d.gaps, 3u);
  EXPECT_EQ(d.host_ns, (2 + 32) * us);   // 50->52 and 60->92
  EXPECT_EQ(d.issued_ns, (3 + 3) * us);  // 52->55 and 92->95
  EXPECT_EQ(d.unknown_ns, 10 * us);      // the copy has no API time
  EXPECT_EQ(d.host_ns + d.issued_ns + d.unknown_ns, d.idle_ns());
  EXPECT_EQ(d.buckets[0].count, 1u);  // 5 µs
  EXPECT_EQ(d.buckets[1].count, 2u);  // 35 and 10 µs
  EXPECT_EQ(d.buckets[1].ns, 45 * us);
  EXPECT_EQ(d.buckets[2].count + d.buckets[3].count, 0u);
}

TEST(GpuIdle, HostWaitsGoToTheInnermostScopeOfTheLaunchingThread) {
  Trace t = one_device();
  GpuIdleReport r = analyze_gpu_idle(t);
  const DeviceIdle& d = r.devices[0];
  ASSERT_EQ(d.host_scopes.size(), 2u);
  EXPECT_EQ(scope_name(t, d.host_scopes[0].scope), "Sampling");  // 60->90 of the 60->92 wait
  EXPECT_EQ(d.host_scopes[0].ns, 30 * us);
  EXPECT_EQ(scope_name(t, d.host_scopes[1].scope), "Layer 0");  // 50->52 and 90->92
  EXPECT_EQ(d.host_scopes[1].ns, 4 * us);
  ASSERT_EQ(d.largest.size(), 3u);
  const IdleGap& g = d.largest[0];
  EXPECT_EQ(g.start_ns, 60 * us);
  EXPECT_EQ(g.ns, 35 * us);
  EXPECT_EQ(g.host_ns, 32 * us);
  EXPECT_EQ(t.name(t.nodes[g.next]), "k4");
  EXPECT_EQ(ScopeNamer(t)(g.next), "Layer 0");
  EXPECT_EQ(scope_name(t, g.host_scope), "Sampling");
  EXPECT_EQ(d.largest[1].ns, 10 * us);
  EXPECT_EQ(d.largest[2].ns, 5 * us);
}

TEST(GpuIdle, DevicesApartAndHostTimeOutsideAnyScope) {
  Trace t;
  // Thread 3 has no scopes; device 1 is listed nowhere in devices[].
  op(t, NodeKind::kKernel, "a", kNoNode, 3, 1, 0, 1, 2, 4);
  op(t, NodeKind::kKernel, "b", kNoNode, 3, 1, 0, 10, 12, 14);
  op(t, NodeKind::kKernel, "c", kNoNode, 3, 0, 0, 1, 2, 3);
  GpuIdleReport r = analyze_gpu_idle(t);
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].device, 0u);
  EXPECT_EQ(r.devices[0].gaps, 0u);
  EXPECT_EQ(r.devices[0].busy_ns, r.devices[0].span_ns);
  const DeviceIdle& d = r.devices[1];
  EXPECT_EQ(d.name, "gpu1");
  EXPECT_EQ(d.host_ns, 6 * us);  // 4 -> 10
  ASSERT_EQ(d.host_scopes.size(), 1u);
  EXPECT_EQ(scope_name(t, d.host_scopes[0].scope), "(no scope)");
  EXPECT_EQ(scope_name(t, d.largest[0].host_scope), "(no scope)");
}

TEST(GpuIdle, AnApiTimeAfterTheStartIsClampedToTheGap) {
  Trace t;  // clocks of host and GPU a little apart: issue after the start
  op(t, NodeKind::kKernel, "a", kNoNode, 3, 0, 0, 1, 2, 4);
  op(t, NodeKind::kKernel, "b", kNoNode, 3, 0, 0, 20, 10, 14);
  const DeviceIdle d = analyze_gpu_idle(t).devices.at(0);
  EXPECT_EQ(d.host_ns, 6 * us);
  EXPECT_EQ(d.issued_ns, 0);
}

// Windows [0,55] and [85,120]: of the 60->95 gap only 85->95 was recorded
// (its host part 85->92), the 25 µs before are left out, not idle.
TEST(GpuIdle, OnlyTimeInsideCaptureWindowsIsIdle) {
  Trace t = one_device();
  t.diagnostics.capture = "scope 'Layer 0': 2 windows";
  t.diagnostics.capture_windows = {{0, 55 * us}, {85 * us, 120 * us}};
  GpuIdleReport r = analyze_gpu_idle(t);
  const DeviceIdle& d = r.devices.at(0);
  EXPECT_EQ(d.span_ns, 100 * us);
  EXPECT_EQ(d.busy_ns, 50 * us);
  EXPECT_EQ(d.outside_capture_ns, 25 * us);
  EXPECT_EQ(d.idle_ns(), 25 * us);
  EXPECT_EQ(d.gaps, 3u);
  EXPECT_EQ(d.host_ns, (2 + 7) * us);
  EXPECT_EQ(d.issued_ns, (3 + 3) * us);
  EXPECT_EQ(d.unknown_ns, 10 * us);
  ASSERT_EQ(d.host_scopes.size(), 2u);
  EXPECT_EQ(scope_name(t, d.host_scopes[0].scope), "Sampling");  // 85->90
  EXPECT_EQ(d.host_scopes[0].ns, 5 * us);
  EXPECT_EQ(d.host_scopes[1].ns, 4 * us);  // Layer 0: 50->52 and 90->92
  ASSERT_EQ(d.largest.size(), 3u);
  EXPECT_EQ(d.largest[0].ns, 10 * us);
  EXPECT_EQ(d.largest[0].start_ns, 85 * us);  // where the recorded idle starts
  EXPECT_EQ(scope_name(t, d.largest[0].host_scope), "Sampling");

  std::ostringstream text;
  text << test::render("gpu-idle", t, {}, false);
  EXPECT_NE(text.str().find("idle 25.0µs in 3 gaps between 6 operations (25.0µs between "
                            "capture windows left out)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("time between windows is left out of idle"), std::string::npos);
  // A gap wholly between windows is no gap at all.
  t.diagnostics.capture_windows = {{0, 50 * us}, {95 * us, 120 * us}};
  const DeviceIdle lean = analyze_gpu_idle(t).devices.at(0);
  EXPECT_EQ(lean.gaps, 1u);  // 50->55 and 60->95 left out; 100->110 stays
  EXPECT_EQ(lean.outside_capture_ns, 40 * us);
  // A gap a window edge splits is two gaps: 60->70 and 80->95.
  t.diagnostics.capture_windows = {{0, 70 * us}, {80 * us, 120 * us}};
  const DeviceIdle split = analyze_gpu_idle(t).devices.at(0);
  EXPECT_EQ(split.gaps, 4u);
  EXPECT_EQ(split.outside_capture_ns, 10 * us);
  EXPECT_EQ(split.host_ns, (2 + 10 + 12) * us);  // 50->52, 60->70, 80->92
  EXPECT_EQ(split.largest[0].ns, 15 * us);
  EXPECT_EQ(split.largest[0].start_ns, 80 * us);
}

// Several operations start exactly at a gap's end: the gap ends with the
// one issued first. b was queued at 5 µs (before the gap at 10 µs), so the
// GPU had work waiting and nothing of the gap is the host's, although c,
// which ends later, was issued at 45 µs.
TEST(GpuIdle, AtATieTheGapEndsWithTheOperationIssuedFirst) {
  Trace t;
  const uint32_t main = scope(t, NodeKind::kScope, "main", kNoNode, 3, 0, 100);
  op(t, NodeKind::kKernel, "a", main, 3, 0, 1, 1, 2, 10);
  op(t, NodeKind::kKernel, "b", main, 3, 0, 1, 5, 50, 60);
  op(t, NodeKind::kKernel, "c", main, 3, 0, 2, 45, 50, 90);
  const DeviceIdle d = analyze_gpu_idle(t).devices.at(0);
  EXPECT_EQ(d.gaps, 1u);
  EXPECT_EQ(d.host_ns, 0);
  EXPECT_EQ(d.issued_ns, 40 * us);
  ASSERT_EQ(d.largest.size(), 1u);
  EXPECT_EQ(t.name(t.nodes[d.largest[0].next]), "b");
}

// The JSON lists every host scope the GPU waited on; the text the first ten.
TEST(GpuIdle, JsonListsEveryHostScope) {
  Trace t;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "scope " + std::to_string(i);
    const int64_t at = 100 * i;
    const uint32_t s = scope(t, NodeKind::kScope, name.c_str(), kNoNode, 3, at, at + 100);
    op(t, NodeKind::kKernel, "k", s, 3, 0, 1, at + 50, at + 60, at + 70);
  }
  const DeviceIdle d = analyze_gpu_idle(t).devices.at(0);
  EXPECT_EQ(d.host_scopes.size(), 12u);
  const std::string json = test::render("gpu-idle", t, {}, true);
  size_t scopes = 0;
  for (size_t at = json.find("{\"scope\":"); at != std::string::npos;
       at = json.find("{\"scope\":", at + 1))
    ++scopes;
  EXPECT_EQ(scopes, 12u) << json;
}

TEST(GpuIdle, ViewsRenderTextAndJson) {
  Trace t = one_device();
  std::ostringstream text, json;
  text << test::render("gpu-idle", t, {}, false);
  json << test::render("gpu-idle", t, {}, true);
  EXPECT_NE(text.str().find("GPU idle (Test GPU): busy 50.0µs of 100.0µs (50.0%; kernels 40.0%)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("waiting for the host to issue work: 34.0µs (68.0% of idle)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("35.0µs at 60.0µs before k4 (Layer 0): host 32.0µs in Sampling"),
            std::string::npos)
      << text.str();
  EXPECT_NE(json.str().find("\"host_ns\":34000"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"host_scope\":\"Sampling\""), std::string::npos) << json.str();

  // A CPU-only trace says it has no GPU work; an empty one, that nothing
  // was recorded at all, as every view does.
  Trace cpu_only;
  test::add_node(cpu_only, {.kind = NodeKind::kScope, .name = "work", .end_ns = 10});
  std::ostringstream none;
  none << test::render("gpu-idle", cpu_only, {}, false);
  EXPECT_EQ(none.str(), "GPU idle: no GPU work in the trace\n");
  std::ostringstream empty;
  empty << test::render("gpu-idle", Trace{}, {}, false);
  EXPECT_EQ(empty.str(), std::string(kNothingRecorded) + "\n");
}

}  // namespace
}  // namespace brickprof
