// The streamed exit write (agent/io/trace_stream.h) against the whole-Trace
// oracle (tests/agent/support/replay_oracle.h) fed to the whole-Trace
// writers, on one recorded trace: every format must come out
// byte for byte the same, and the Perfetto trace what `brickprof report
// --perfetto` writes from the streamed JSON. The trace is recorded in this
// process, through the agent's recorder and its CUPTI source on the fake
// driver and fake CUPTI: several threads, layers, bricks and scopes, marks and work, NVTX
// push/pop and start/end ranges (one ending on another thread), kernels,
// copies, a memset, a sync, a CUDA graph captured in one window and replayed
// in another, and capture windows (cuProfilerStart/Stop) that cut scopes
// and leave work outside.
#include <cuda.h>
#include <cudaProfiler.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <thread>
#include <vector>

#include "agent/capture/capture.h"
#include "agent/cupti/state.h"
#include "agent/gpu_source.h"
#include "agent/io/config.h"
#include "agent/io/process_info.h"
#include "agent/io/trace_stream.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/recorder.h"
#include "trace/formats/perfetto.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"
#include "trace/output/whole_trace.h"
#include "tests/agent/support/replay_oracle.h"

namespace brickprof::agent {
namespace {

const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry _Z4normPf(\n\t.param .u64 out\n)\n{\n\tret;\n}\n\n"
    ".visible .entry _Z4gemvPf(\n\t.param .u64 out\n)\n{\n\tret;\n}\n";

#define CU(call) ASSERT_EQ((call), CUDA_SUCCESS) << #call

struct Gpu {
  CUcontext ctx = nullptr;
  CUfunction norm = nullptr, gemv = nullptr;
  CUdeviceptr buffer = 0;
  void launch(CUfunction f, unsigned grid, CUstream stream = nullptr) {
    void* args[] = {&buffer};
    ASSERT_EQ(cuLaunchKernel(f, grid, 1, 1, 128, 1, 1, 0, stream, args, nullptr), CUDA_SUCCESS);
  }
};

uint32_t scope(const char* name) { return Recorder::intern_site(NodeKind::kScope, -1, name); }

// A decode step as an NVTX-annotated program would record it.
void step(Gpu& gpu, int layers) {
  const uint32_t token = Recorder::intern_named("decode token", NodeKind::kScope);
  Recorder::push(token, 0);
  for (int l = 0; l < layers; ++l) {
    Recorder::push(Recorder::intern_site(NodeKind::kLayer, -1, ""), static_cast<uint64_t>(l));
    Recorder::push(Recorder::intern_named("RMSNorm", NodeKind::kScope), 4096);
    gpu.launch(gpu.norm, 16);
    Recorder::work(2.0e6, 3.0e5);
    Recorder::pop();
    Recorder::push(Recorder::intern_site(NodeKind::kBrick, 2, ""), 3 * 4096);
    Recorder::mark(Recorder::intern_named("qkv start", NodeKind::kScope));
    gpu.launch(gpu.gemv, 96);
    gpu.launch(gpu.gemv, 96);
    Recorder::pop();
    Recorder::pop();
  }
  Recorder::pop();
}

class StreamGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("bp-stream-golden-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(StreamGolden, StreamedWriteIsTheTraceWritersBytes) {
  Clock::init();
  Recorder::reset_after_fork();
  Recorder::set_capacity(64ull << 20);
  Recorder::set_enabled(true);
  Config config;
  config.capture = capture::Mode::kCudaProfilerApi;
  config.buffer_bytes = 64ull << 20;
  capture::configure(config.capture, "");
  std::string status;
  std::unique_ptr<GpuSource> source = start_gpu_source(config, &status);
  ASSERT_TRUE(source) << status;
  // CUPTI's records stay on between the windows here, as without the
  // switch, so that records of work launched outside them reach both
  // writers' left-out path (and the off span the switch noted at start,
  // still open, both writers' activity_off).
  capture::set_activity_hook(nullptr);
  for (CUpti_ActivityKind kind : gpu_state()->enabled_kinds)
    ASSERT_EQ(gpu_state()->cupti.activity_enable(kind), CUPTI_SUCCESS);

  Gpu gpu;
  CUdevice device;
  CUmodule module;
  CU(cuInit(0));
  CU(cuDeviceGet(&device, 0));
  CU(cuCtxCreate(&gpu.ctx, nullptr, 0, device));
  CU(cuModuleLoadData(&module, kPtx));
  CU(cuModuleGetFunction(&gpu.norm, module, "_Z4normPf"));
  CU(cuModuleGetFunction(&gpu.gemv, module, "_Z4gemvPf"));
  CU(cuMemAlloc(&gpu.buffer, 1 << 20));
  std::vector<unsigned char> host(1 << 16, 7);

  // Window 1: a CUDA graph captured under a brick, threads, ranges.
  CU(cuProfilerStart());
  const uint32_t outer = scope("whole run");
  Recorder::push(outer, 0);  // open across every window edge
  CUstream stream;
  CU(cuStreamCreate(&stream, 0));
  CUgraphExec exec;
  {
    Recorder::push(Recorder::intern_site(NodeKind::kBrick, -1, "GraphCapture"), 1);
    CU(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    gpu.launch(gpu.norm, 8, stream);
    CU(cuMemcpyHtoDAsync(gpu.buffer, host.data(), 4096, stream));
    gpu.launch(gpu.gemv, 32, stream);
    CUgraph graph;
    CU(cuStreamEndCapture(stream, &graph));
    CU(cuGraphInstantiate(&exec, graph, 0));
    Recorder::pop();
  }
  const uint32_t load = Recorder::intern_named("async load", NodeKind::kScope);
  Recorder::range_start(load, 1);
  Recorder::range_start(Recorder::intern_named("Gate", NodeKind::kScope), 2);
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([&gpu, t] {
      ASSERT_EQ(cuCtxSetCurrent(gpu.ctx), CUDA_SUCCESS);
      for (int s = 0; s < 4 + t; ++s) step(gpu, 2);
      if (t == 1) Recorder::range_end(1);  // started on the main thread
      Recorder::pop();                     // with nothing open
    });
  }
  for (std::thread& w : workers) w.join();
  {
    Recorder::push(scope("upload"), 0);
    CU(cuMemcpyHtoD(gpu.buffer, host.data(), host.size()));
    CU(cuMemsetD8(gpu.buffer, 0, 1024));
    CU(cuCtxSynchronize());
    Recorder::pop();
  }
  Recorder::push(scope("cut by the window's end"), 0);
  CU(cuProfilerStop());

  // Between windows: nothing recorded, the launches left out.
  step(gpu, 1);
  Recorder::pop();  // the scope the window cut

  // Window 2: graph replays under the capturing brick, more steps.
  CU(cuProfilerStart());
  for (int r = 0; r < 3; ++r) {
    Recorder::push(scope("replay"), static_cast<uint64_t>(r));
    CU(cuGraphLaunch(exec, stream));
    Recorder::pop();
  }
  CU(cuStreamSynchronize(stream));
  step(gpu, 3);
  Recorder::range_end(2);
  CU(cuProfilerStop());

  // Window 3, open at exit, with a scope open at exit.
  CU(cuProfilerStart());
  step(gpu, 1);
  Recorder::push(scope("open at exit"), 0);
  CU(cuMemcpyDtoH(host.data(), gpu.buffer, 512));
  CU(cuCtxSynchronize());

  // The dump, both ways, over the same events.
  capture::freeze(true);
  source->flush();
  const uint64_t end_ticks = Clock::ticks();
  const Clock clock = Clock::fit_now();
  const std::vector<capture::Window> windows = capture::windows();
  ASSERT_EQ(windows.size(), 3u);
  std::vector<Recorder::ThreadEvents> threads = Recorder::snapshot();
  const std::vector<std::string> formats = {"json", "tree", "dot", "chrome", "folded", "perfetto"};

  Trace old;
  ReplayResult replayed = replay(threads, clock, end_ticks, old, windows);
  std::map<uint32_t, std::string> noted;
  for (const Recorder::ThreadEvents& t : threads) noted[t.tid] = t.name;
  for (uint32_t lane = 0; lane < replayed.range_lanes; ++lane)
    noted[kRangeLaneBase + lane] =
        lane == 0 ? "NVTX ranges" : "NVTX ranges " + std::to_string(lane + 1);
  fill_process_info(old, 0, clock.to_ns(end_ticks), noted, CmdlineMode::kFull);
  old.diagnostics.unbalanced_pops = replayed.unbalanced_pops;
  old.diagnostics.open_scopes_at_exit = replayed.open_scopes_at_exit;
  old.diagnostics.scopes_cut_by_capture = replayed.scopes_cut_by_capture;
  attach_gpu(*source->begin_dump(), replayed.launches, old);  // the dump's locks end here
  MemorySink old_outputs;
  ASSERT_TRUE(write_outputs(old, formats, old_outputs).failures.empty());

  std::unique_ptr<GpuDump> dump = source->begin_dump();
  TraceStream streamed(threads, clock, end_ticks, windows, dump.get(), false, dir_.string());
  Trace header;
  header.process = process_info(0, clock.to_ns(end_ticks), CmdlineMode::kFull);
  header.threads = thread_infos(streamed.node_threads(), streamed.noted_names());
  header.diagnostics.unbalanced_pops = streamed.counts().unbalanced_pops;
  header.diagnostics.open_scopes_at_exit = streamed.counts().open_scopes_at_exit;
  header.diagnostics.scopes_cut_by_capture = streamed.counts().scopes_cut_by_capture;
  dump->contribute_header(header, streamed.gpu_left_out());
  MemorySink new_outputs;
  ASSERT_TRUE(streamed.write(header, formats, new_outputs).failures.empty());
  EXPECT_TRUE(streamed.note().empty()) << streamed.note();

  // The trace has what the test means to compare.
  EXPECT_GT(old.nodes.size(), 200u);
  EXPECT_GE(replayed.range_lanes, 2u);
  EXPECT_GT(replayed.scopes_cut_by_capture, 0u);
  EXPECT_EQ(replayed.open_scopes_at_exit, 1u);
  EXPECT_GT(old.diagnostics.records_outside_capture, 0u);
  size_t kernels = 0, copies = 0, memsets = 0, syncs = 0, replays = 0, threads_seen = 0;
  for (const Node& n : old.nodes) {
    kernels += n.kind == NodeKind::kKernel;
    copies += n.kind == NodeKind::kTransfer;
    memsets += n.kind == NodeKind::kMemset;
    syncs += n.kind == NodeKind::kSync;
    if (const GpuDetail* g = old.detail(n)) replays += g->graph_node != 0;
  }
  for (const ThreadInfo& t : old.threads) threads_seen += !is_range_lane(t.tid);
  EXPECT_GT(kernels, 100u);
  EXPECT_GT(copies, 2u);
  EXPECT_GT(memsets, 0u);
  EXPECT_GT(syncs, 0u);
  EXPECT_GT(replays, 0u);
  EXPECT_GE(threads_seen, 4u);

  for (const std::string& format : formats) {
    const std::string& a = old_outputs.text(format);
    const std::string& b = new_outputs.text(format);
    EXPECT_FALSE(a.empty()) << format;
    if (a == b) continue;
    size_t at = 0;
    while (at < a.size() && at < b.size() && a[at] == b[at]) ++at;
    const size_t from = at > 200 ? at - 200 : 0;
    ADD_FAILURE() << format << " differs at byte " << at << " of " << a.size() << "/" << b.size()
                  << "\n--- whole-Trace writer:\n"
                  << a.substr(from, 400) << "\n--- streamed:\n"
                  << b.substr(from, 400);
  }
  // And what `brickprof report --perfetto` writes from the streamed JSON.
  std::ostringstream reported;
  write_format("perfetto", parse_trace_json(new_outputs.text("json")), reported);
  EXPECT_TRUE(reported.str() == new_outputs.text("perfetto"))
      << "perfetto from the JSON: " << reported.str().size() << " bytes, streamed "
      << new_outputs.text("perfetto").size();
  dump.reset();
  cuCtxDestroy(gpu.ctx);
}

// Perfetto's slice order and lanes on events made by hand, which a recorded
// run almost never has: a zero-length mark at the nanosecond a longer
// sibling starts (slices go by start, then the longer first: not id order),
// and one thread id with two blocks of events (a thread that registered
// again) whose scopes overlap without nesting (a second lane).
TEST_F(StreamGolden, PerfettoOrdersAndSplitsHandMadeEvents) {
  Clock::init();
  const Clock clock = Clock::fit_now();
  const uint64_t t0 = Clock::ticks();
  const uint64_t us = static_cast<uint64_t>(1000.0 / clock.ns_per_tick()) + 1;
  const uint32_t a = scope("outer"), b = scope("inner"), m = scope("instant");
  std::vector<uint64_t> words[3];
  const auto push = [&](int t, uint32_t site, uint64_t at) {
    words[t].insert(words[t].end(), {event_tag(site, EventType::kPush), t0 + at * us, 0});
  };
  const auto pop = [&](int t, uint64_t at) {
    words[t].insert(words[t].end(), {event_tag(0, EventType::kPop), t0 + at * us});
  };
  const auto mark = [&](int t, uint32_t site, uint64_t at) {
    words[t].insert(words[t].end(), {event_tag(site, EventType::kMark), t0 + at * us});
  };
  push(0, a, 0);  // outer [0, 300] holds instant [100, 100] and inner [100, 200]
  mark(0, m, 100);
  push(0, b, 100);
  pop(0, 200);
  pop(0, 300);
  push(0, a, 400);  // [400, 500]
  pop(0, 500);
  push(1, b, 250);  // tid 7 again: [250, 450] overlaps both
  pop(1, 450);
  mark(2, m, 50);  // at the root of another thread
  push(2, a, 50);
  pop(2, 60);
  std::vector<Recorder::ThreadEvents> threads(3);
  const uint32_t tids[3] = {7, 7, 8};
  for (int t = 0; t < 3; ++t) {
    threads[t].tid = tids[t];
    threads[t].name = "worker";
    threads[t].segments.push_back({words[t].data(), static_cast<uint32_t>(words[t].size())});
  }
  const uint64_t end_ticks = t0 + 1000 * us;

  Trace old;
  replay(threads, clock, end_ticks, old);
  fill_process_info(old, 0, clock.to_ns(end_ticks), {{7, "worker"}, {8, "worker"}},
                    CmdlineMode::kFull);
  std::ostringstream expected;
  write_format("perfetto", old, expected);

  TraceStream streamed(threads, clock, end_ticks, {}, nullptr, false, dir_.string());
  Trace header;
  header.process = process_info(0, clock.to_ns(end_ticks), CmdlineMode::kFull);
  header.threads = thread_infos(streamed.node_threads(), streamed.noted_names());
  MemorySink outputs;
  ASSERT_TRUE(streamed.write(header, {"json", "perfetto"}, outputs).failures.empty());
  EXPECT_TRUE(outputs.text("perfetto") == expected.str())
      << "streamed " << outputs.text("perfetto").size() << " bytes, whole-Trace writer "
      << expected.str().size();
  std::ostringstream reported;
  write_format("perfetto", parse_trace_json(outputs.text("json")), reported);
  EXPECT_TRUE(outputs.text("perfetto") == reported.str());
  // The case is there: two lanes on tid 7 (an "(overlapping 2)" track).
  EXPECT_NE(expected.str().find("worker (overlapping 2)"), std::string::npos);
  EXPECT_EQ(old.nodes.size(), 7u);
}

}  // namespace
}  // namespace brickprof::agent
