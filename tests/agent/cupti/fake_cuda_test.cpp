// The whole CUPTI path without a GPU: fake_gpu_app runs on the fake driver
// and fake CUPTI (this folder) with the agent loaded, and its trace must
// show every launch as a kernel under the brick that issued it, with the
// durations the fake GPU promises, and every copy under its scope.
#include <cupti.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/fakes/cuda_driver/fake_cuda.h"
#include "tests/fakes/cuda_driver/fake_gpu_app.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/trace_query.h"
#include "trace/json/trace_json.h"

namespace fs = std::filesystem;
using brickprof::test::Result;
using brickprof::test::run;
using brickprof::test::TempDirTest;
using nlohmann::json;
using namespace brickprof::test::trace_query;

namespace {

class FakeCudaTest : public TempDirTest {
 protected:
  // The fakes are found only through this: nothing else sees them.
  static std::map<std::string, std::string> fake_env() {
    return {{"LD_LIBRARY_PATH", FAKE_CUDA_DIR}};
  }
  std::map<std::string, std::string> agent_env() {
    auto env = fake_env();
    env["LD_PRELOAD"] = BRICKPROF_AGENT_PATH;
    env["BRICKPROF_OUTPUT"] = (dir_ / "out-%p").string();
    env["BRICKPROF_FORMATS"] = "json";
    return env;
  }

  // Runs the app with and without the agent: same status and stdout.
  Result run_app(const std::map<std::string, std::string>& env,
                 const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {FAKE_GPU_APP};
    argv.insert(argv.end(), args.begin(), args.end());
    auto plain_env = fake_env();
    for (const char* k : {fake_cuda::kEnvOtherSubscriber, fake_cuda::kEnvDropKernels})
      if (env.count(k)) plain_env[k] = env.at(k);
    Result plain = run(argv, plain_env);
    EXPECT_EQ(plain.exit_code(), 0) << plain.err;
    EXPECT_EQ(plain.out, fake_gpu_app::kStdout);
    Result traced = run(argv, env);
    EXPECT_EQ(traced.status, plain.status) << traced.err;
    EXPECT_EQ(traced.out, plain.out);
    return traced;
  }

  // A second copy of the fake libcupti, found after the first under the
  // next candidate name (libcupti.so.13), as a second CUPTI install would be.
  std::map<std::string, std::string> env_with_second_libcupti(std::string* first,
                                                              std::string* second) {
    fs::create_directories(dir_ / "second");
    *first = std::string(FAKE_CUDA_DIR) + "/libcupti.so";
    *second = (dir_ / "second" / "libcupti.so.13").string();
    fs::copy_file(*first, *second);
    auto env = agent_env();
    env["LD_LIBRARY_PATH"] = std::string(FAKE_CUDA_DIR) + ":" + (dir_ / "second").string();
    return env;
  }

  json load_trace() {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().extension() == ".json") files.push_back(e.path());
    EXPECT_EQ(files.size(), 1u);
    if (files.empty()) return json();
    EXPECT_NO_THROW(brickprof::read_trace_file(files[0].string()));
    std::ifstream in(files[0]);
    return json::parse(in);
  }
};

// Every kernel sits under the brick that launched it, in launch order, with
// the fake GPU's duration, its module's PTX hash and a launches edge.
void expect_kernels_under_bricks(const json& t, size_t expected) {
  using namespace fake_gpu_app;
  auto kernels = of_kind(t, "kernel");
  ASSERT_EQ(kernels.size(), expected);
  ASSERT_EQ(t["ptx"].size(), 1u);
  const json& module = t["ptx"][0];
  EXPECT_EQ(module["kind"], "ptx");
  EXPECT_EQ(module["kernels"], json({kRmsNormKernel, kQkvKernel}));
  std::map<uint64_t, std::vector<uint64_t>> grids_by_brick;  // in correlation order
  std::map<uint64_t, uint64_t> last_correlation;
  for (const json* k : kernels) {
    ASSERT_FALSE((*k)["parent"].is_null()) << k->dump();
    const json& brick = parent_of(t, *k);
    ASSERT_EQ(brick["kind"], "brick") << k->dump();
    EXPECT_EQ((*k)["thread"], brick["thread"]);
    EXPECT_EQ(duration(*k), static_cast<int64_t>(blocks(*k) * fake_cuda::kNsPerBlock)) << k->dump();
    EXPECT_EQ((*k)["block"], json({kBlock, 1, 1}));
    EXPECT_EQ((*k)["stream"], fake_cuda::kDefaultStreamId);
    EXPECT_EQ((*k)["ptx_hash"], module["hash"]);
    EXPECT_TRUE(has_edge(t, brick["id"], (*k)["id"], "launches")) << k->dump();
    // The launch call happened inside the brick (both on the CPU clock).
    EXPECT_GE((*k)["api_start_ns"], brick["start_ns"]);
    EXPECT_LE((*k)["api_end_ns"], brick["end_ns"]);
    auto correlation = (*k)["correlation"].get<uint64_t>();
    auto id = brick["id"].get<uint64_t>();
    EXPECT_GT(correlation, last_correlation[id]);
    last_correlation[id] = correlation;
    grids_by_brick[id].push_back((*k)["grid"][0].get<uint64_t>());
    if (brick["name"] == "RmsNorm") {
      EXPECT_EQ((*k)["name"], kRmsNormDemangled);
    } else {
      EXPECT_EQ(brick["name"], "QkvProjection");
      EXPECT_EQ((*k)["name"], kQkvDemangled);
    }
  }
  if (expected != kLayers * 4u) return;  // some dropped: no per-brick plan to check
  auto bricks = of_kind(t, "brick");
  ASSERT_EQ(bricks.size(), kLayers * 2u);
  for (const json* b : bricks) {
    const json& layer = parent_of(t, *b);
    EXPECT_EQ(layer["kind"], "layer");
    std::vector<uint64_t> want =
        (*b)["name"] == "RmsNorm"
            ? std::vector<uint64_t>{kRmsNormGrid}
            : std::vector<uint64_t>(std::begin(kQkvGrids), std::end(kQkvGrids));
    EXPECT_EQ(grids_by_brick[(*b)["id"].get<uint64_t>()], want) << b->dump();
  }
  for (const json& s : t["bricks"]) {
    uint64_t per_layer = s["name"] == "RmsNorm" ? kRmsNormGrid : 3 + 4 + 5;
    EXPECT_EQ(s["gpu_ns"], kLayers * per_layer * fake_cuda::kNsPerBlock) << s.dump();
    EXPECT_EQ(s["kernels"], s["name"] == "RmsNorm" ? kLayers : 3 * kLayers);
  }
}

// The upload and download appear once each, under their scopes.
void expect_copies_under_scopes(const json& t) {
  using namespace fake_gpu_app;
  auto transfers = of_kind(t, "transfer");
  ASSERT_EQ(transfers.size(), 2u);
  for (const json* c : transfers) {
    ASSERT_FALSE((*c)["parent"].is_null()) << c->dump();
    const json& scope = parent_of(t, *c);
    EXPECT_EQ(scope["kind"], "scope");
    EXPECT_TRUE(has_edge(t, scope["id"], (*c)["id"], "launches"));
    auto bytes = (*c)["bytes"].get<uint64_t>();
    EXPECT_EQ(duration(*c), static_cast<int64_t>(bytes / fake_cuda::kBytesPerNs));
    if (scope["name"] == kUploadScope) {
      EXPECT_EQ((*c)["direction"], "H2D");
      EXPECT_EQ(bytes, kUploadBytes);
      EXPECT_EQ((*c)["src_kind"], "pageable");
      EXPECT_EQ((*c)["dst_kind"], "device");
      EXPECT_EQ((*c)["dst_addr"], fake_cuda::kHeapBase);  // read from the API's parameters
    } else {
      EXPECT_EQ(scope["name"], kDownloadScope);
      EXPECT_EQ((*c)["direction"], "D2H");
      EXPECT_EQ(bytes, kDownloadBytes);
      EXPECT_EQ((*c)["src_addr"], fake_cuda::kHeapBase);
    }
  }
}

void expect_clean_capture(const json& t) {
  const json& d = t["diagnostics"];
  EXPECT_EQ(d["cupti"].get<std::string>().rfind("active (", 0), 0u) << d["cupti"];
  EXPECT_EQ(d["dropped_activity_records"], 0);
  EXPECT_EQ(d["zero_timestamp_records"], 0);
  EXPECT_EQ(d["unbalanced_pops"], 0);
  EXPECT_EQ(d["warnings"], json::array());
  ASSERT_EQ(t["devices"].size(), 1u);
  EXPECT_EQ(t["devices"][0]["name"], fake_cuda::kDeviceName);
  EXPECT_EQ(t["devices"][0]["sm_count"], fake_cuda::kSmCount);
}

// fake_gpu_app's default run, all of it: a clean capture, its four kernels
// per layer under their bricks, its two copies under their scopes.
void expect_whole_app_captured(const json& t) {
  expect_clean_capture(t);
  expect_kernels_under_bricks(t, fake_gpu_app::kLayers * 4u);
  expect_copies_under_scopes(t);
}

TEST_F(FakeCudaTest, EveryLaunchAndCopyLandsUnderItsScope) {
  Result r = run_app(agent_env());
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  expect_whole_app_captured(t);
  // cuCtxSynchronize between the layers and the download, outside any scope.
  auto syncs = of_kind(t, "sync");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ((*syncs[0])["sync"], "context");
  EXPECT_TRUE((*syncs[0])["parent"].is_null());
}

// No cuCtxDestroy: the records are still with CUPTI at exit, and the
// agent's exit flush must fetch them.
TEST_F(FakeCudaTest, RecordsPendingAtExitAreFlushed) {
  Result r = run_app(agent_env(), {fake_gpu_app::kKeepContext});
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  expect_whole_app_captured(t);
}

// The exec replaces the process while the records are still with CUPTI:
// the trace written before it holds all the GPU work.
TEST_F(FakeCudaTest, GpuWorkIsWrittenBeforeExec) {
  Result r = run({FAKE_GPU_APP, fake_gpu_app::kExecAtEnd, "/bin/true"}, agent_env());
  EXPECT_EQ(r.exit_code(), 0) << r.err;  // true's
  fs::path before;
  for (const auto& e : fs::directory_iterator(dir_))
    if (e.path().filename().string().find(".pre-exec.json") != std::string::npos) before = e.path();
  ASSERT_FALSE(before.empty());
  std::ifstream in(before);
  json t = json::parse(in);
  expect_kernels_under_bricks(t, fake_gpu_app::kLayers * 4u);
  expect_copies_under_scopes(t);
}

// The exec fails after the trace was written (a directory passes the
// agent's access() check) and the program goes on: its one trace, written
// again at exit, has every launch and copy once.
TEST_F(FakeCudaTest, FailedExecLeavesOneTraceWithEveryLaunchOnce) {
  Result r = run_app(agent_env(), {fake_gpu_app::kExecAtEnd, "/"});
  EXPECT_EQ(r.err, "");
  expect_whole_app_captured(load_trace());
}

// CUDA_INJECTION64_PATH alone: the driver loads the agent from cuInit.
TEST_F(FakeCudaTest, InjectionPathAloneWorks) {
  auto env = agent_env();
  env.erase("LD_PRELOAD");
  env["CUDA_INJECTION64_PATH"] = BRICKPROF_AGENT_PATH;
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  expect_whole_app_captured(t);
}

// BRICKPROF_SYNC=per-layer synchronises as each layer ends, inside it.
TEST_F(FakeCudaTest, PerLayerSyncIsAttributedToTheLayer) {
  auto env = agent_env();
  env["BRICKPROF_SYNC"] = "per-layer";
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  expect_clean_capture(t);
  expect_kernels_under_bricks(t, fake_gpu_app::kLayers * 4u);
  int in_layers = 0;
  for (const json* s : of_kind(t, "sync"))
    if (!(*s)["parent"].is_null() && parent_of(t, *s)["kind"] == "layer") ++in_layers;
  EXPECT_EQ(in_layers, fake_gpu_app::kLayers);
}

TEST_F(FakeCudaTest, DroppedRecordsAreCounted) {
  auto env = agent_env();
  env[fake_cuda::kEnvDropKernels] = "3";
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["dropped_activity_records"], 3);
  expect_kernels_under_bricks(t, fake_gpu_app::kLayers * 4u - 3u);
  expect_copies_under_scopes(t);
}

// 50,000 kernel records (~10 MB) fill several of the agent's 4 MB activity
// buffers; the fake CUPTI hands full ones back from its own thread while
// the program goes on launching, as CUPTI does. Nothing may be lost or
// misattributed on the way.
TEST_F(FakeCudaTest, BuffersFilledMidRunAreAllTranslated) {
  constexpr size_t kLaunches = 50000;
  Result r = run({FAKE_GPU_APP, fake_gpu_app::kMany, std::to_string(kLaunches)}, agent_env());
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["dropped_activity_records"], 0);
  auto kernels = of_kind(t, "kernel");
  ASSERT_EQ(kernels.size(), kLaunches);
  const json& brick = parent_of(t, *kernels[0]);
  EXPECT_EQ(brick["name"], "RmsNorm");
  std::set<uint64_t> correlations;
  for (const json* k : kernels) {
    EXPECT_EQ((*k)["parent"], brick["id"]);
    correlations.insert((*k)["correlation"].get<uint64_t>());
  }
  EXPECT_EQ(correlations.size(), kLaunches);
}

// GPU records count against BRICKPROF_BUFFER_MB with the events (they had
// a cap of their own, a sixteenth as many records as the cap has bytes,
// and the activity buffers another eighth of it): with a 16 MB cap,
// 400,000 launches grew the process by 108 MB; now by the cap and the
// agent's fixed costs (its code, the page thread's 8 MiB of ready pages).
TEST_F(FakeCudaTest, GpuRecordsShareTheMemoryCapWithEvents) {
  constexpr uint64_t kCapMb = 16;
  const std::vector<std::string> argv = {FAKE_GPU_APP, fake_gpu_app::kMany, "400000"};
  Result plain = run(argv, fake_env());
  ASSERT_EQ(plain.exit_code(), 0) << plain.err;
  auto env = agent_env();
  env["BRICKPROF_BUFFER_MB"] = std::to_string(kCapMb);
  Result traced = run(argv, env);
  ASSERT_EQ(traced.exit_code(), 0) << traced.err;
  EXPECT_LT(traced.peak_rss_kb - plain.peak_rss_kb, long{2 * kCapMb + 8} << 10)
      << "peak " << traced.peak_rss_kb << " kB, " << plain.peak_rss_kb << " kB without the agent";
  json t = load_trace();
  EXPECT_GT(t["diagnostics"]["dropped_activity_records"].get<uint64_t>(), 0u);
  EXPECT_FALSE(of_kind(t, "kernel").empty());
}

// A buffer whose walk fails part-way: the records before it are kept, the
// loss is reported in the trace, and the program is untouched. The 5th
// record fails: the cuMemAlloc's MEMORY2 record (no node), the upload and
// two kernels come before it.
TEST_F(FakeCudaTest, UnreadableRecordIsReportedNotHidden) {
  auto env = agent_env();
  env[fake_cuda::kEnvUnreadableRecord] = "5";
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  EXPECT_EQ(of_kind(t, "kernel").size() + of_kind(t, "transfer").size(), 3u);
  bool said = false;
  for (const json& w : t["diagnostics"]["warnings"])
    said |= w.get<std::string>().find("could not be read") != std::string::npos;
  EXPECT_TRUE(said) << t["diagnostics"].dump();
}

// A machine with four GPUs where the program used one: the trace lists the
// one (from its context and records), not every GPU on the node.
TEST_F(FakeCudaTest, OnlyTheDevicesUsedAreListed) {
  auto env = agent_env();
  env[fake_cuda::kEnvDevices] = "4";
  Result r = run({FAKE_GPU_APP}, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  json t = load_trace();
  ASSERT_EQ(t["devices"].size(), 1u) << t["devices"].dump();
  EXPECT_EQ(t["devices"][0]["id"], 0);
}

// BRICKPROF_PEAK_GFLOPS replaces the device's FLOP/s peak in the trace; the
// bandwidth stays the device's, and the label says which is which.
TEST_F(FakeCudaTest, PeakOverrideReachesTheDevice) {
  auto env = agent_env();
  env["BRICKPROF_PEAK_GFLOPS"] = "1234.5";
  run_app(env);
  json t = load_trace();
  ASSERT_EQ(t["devices"].size(), 1u) << t["devices"].dump();
  EXPECT_EQ(t["devices"][0]["peak_gflops"], 1234.5);
  EXPECT_GT(t["devices"][0]["peak_gbps"].get<double>(), 0);
  EXPECT_EQ(t["devices"][0]["peaks_source"], "FLOP/s override; bandwidth device attributes");
  EXPECT_TRUE(t["diagnostics"]["warnings"].empty()) << t["diagnostics"].dump();
}

// A captured graph holding kernels and an async upload, replayed: every
// replayed kernel and copy lands under the scope open when it was captured,
// and the copies keep the addresses read from the capturing call (they
// carry the graph launch's correlation id, not the capture's).
TEST_F(FakeCudaTest, GraphReplaysKeepCaptureScopesAndCopyAddresses) {
  using namespace fake_gpu_app;
  constexpr size_t kReplays = 3;
  Result r = run({FAKE_GPU_APP, kGraph, std::to_string(kReplays)}, agent_env());
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["dropped_activity_records"], 0);
  size_t kernels = 0, step_uploads = 0;
  for (const json* k : of_kind(t, "kernel")) {
    ASSERT_NE(graph_node(*k), 0u) << k->dump();
    EXPECT_EQ(parent_of(t, *k)["kind"], "brick") << k->dump();
    ++kernels;
  }
  EXPECT_EQ(kernels, kReplays * kLayers * 4);
  for (const json* c : of_kind(t, "transfer")) {
    if (graph_node(*c) == 0) continue;  // the setup upload and the download
    ++step_uploads;
    EXPECT_EQ(parent_of(t, *c)["name"], kStepUploadScope) << c->dump();
    EXPECT_EQ((*c)["bytes"], kStepUploadBytes);
    EXPECT_EQ((*c)["src_kind"], "pinned");
    EXPECT_EQ(c->value("dst_addr", uint64_t{0}), fake_cuda::kHeapBase) << c->dump();
  }
  EXPECT_EQ(step_uploads, kReplays);
}

// BRICKPROF_CAPTURE=cuda-profiler-api: only what was launched between
// cuProfilerStart and cuProfilerStop is kept; the rest is counted.
TEST_F(FakeCudaTest, ProfilerRangeKeepsOnlyWhatItEnclosed) {
  using namespace fake_gpu_app;
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "cuda-profiler-api";
  Result r = run_app(env, {kProfileLastLayer});
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  const json& d = t["diagnostics"];
  EXPECT_EQ(d["capture"].get<std::string>().rfind("cuda-profiler-api: 1 window, ", 0), 0u)
      << d["capture"];
  // Outside (layer 0's four kernels, the upload, the sync and the
  // download) CUPTI's records were off: none was even generated.
  EXPECT_EQ(d["records_outside_capture"], 0);
  EXPECT_EQ(d["activity_off"].size(), 2u);  // before the window, and after it
  EXPECT_EQ(d["scopes_cut_by_capture"], 0);
  EXPECT_EQ(d["unbalanced_pops"], 0);
  EXPECT_EQ(d["dropped_activity_records"], 0);
  auto kernels = of_kind(t, "kernel");
  EXPECT_EQ(kernels.size(), 4u);
  for (const json* k : kernels) {
    const json* layer = ancestor_named(t, *k, "Layer " + std::to_string(kLayers - 1));
    EXPECT_NE(layer, nullptr) << k->dump();
  }
  EXPECT_EQ(of_kind(t, "layer").size(), 1u);
  EXPECT_TRUE(of_kind(t, "transfer").empty());
  EXPECT_TRUE(of_kind(t, "sync").empty());
}

// The usual pattern: a graph captured during warm-up, only its replays
// profiled. Its nodes were created outside the window, so its kernels
// belong to the scope around the graph launch.
TEST_F(FakeCudaTest, ProfiledGraphReplaysLandUnderTheLaunchingScope) {
  using namespace fake_gpu_app;
  constexpr size_t kReplays = 3;
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "cuda-profiler-api";
  Result r = run({FAKE_GPU_APP, kGraph, std::to_string(kReplays), kProfileReplays}, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  json t = load_trace();
  auto kernels = of_kind(t, "kernel");
  EXPECT_EQ(kernels.size(), kReplays * kLayers * 4);
  for (const json* k : kernels) {
    ASSERT_NE(graph_node(*k), 0u);
    EXPECT_EQ(parent_of(t, *k)["name"], kReplayScope) << k->dump();
  }
  EXPECT_EQ(of_kind(t, "scope").size(), kReplays);  // the replay scopes only
  // Outside (the setup upload, and after the window the stream and context
  // syncs and the download) CUPTI's records were off.
  EXPECT_EQ(t["diagnostics"]["records_outside_capture"], 0);
}

TEST_F(FakeCudaTest, ProfilerRangeNeverStartedRecordsNothingAndSaysSo) {
  auto env = agent_env();
  env["BRICKPROF_CAPTURE"] = "cuda-profiler-api";
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  EXPECT_TRUE(t["nodes"].empty());
  // 8 kernels, 2 copies, 1 sync, all while CUPTI's records were off.
  EXPECT_EQ(t["diagnostics"]["records_outside_capture"], 0);
  EXPECT_EQ(t["diagnostics"]["activity_off"].size(), 1u);
  bool said = false;
  for (const json& w : t["diagnostics"]["warnings"])
    said |= w.get<std::string>().find("never called cudaProfilerStart") != std::string::npos;
  EXPECT_TRUE(said) << t["diagnostics"].dump();
}

// Another tool holds CUPTI: the agent says so and records CPU scopes only.
TEST_F(FakeCudaTest, AnotherSubscriberLeavesTheProgramAlone) {
  auto env = agent_env();
  env[fake_cuda::kEnvOtherSubscriber] = "Nsight Systems";
  Result r = run_app(env);
  // One warning from the agent; the program's own output is untouched.
  EXPECT_NE(r.err.find("another CUPTI subscriber is active"), std::string::npos) << r.err;
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["cupti"],
            "unavailable: another CUPTI subscriber is active (Nsight Systems)");
  EXPECT_EQ(of_kind(t, "layer").size(), 2u);
  EXPECT_EQ(of_kind(t, "brick").size(), 4u);
  EXPECT_EQ(of_kind(t, "scope").size(), 2u);
  EXPECT_TRUE(of_kind(t, "kernel").empty());
  EXPECT_TRUE(of_kind(t, "transfer").empty());
  EXPECT_TRUE(of_kind(t, "sync").empty());
}

// One FAKE_CUPTI_SUBSCRIBE_ERROR entry: that copy of the fake refuses.
std::string refusal(const std::string& libcupti, CUptiResult error) {
  return libcupti + "=" + std::to_string(error);
}

// A libcupti newer than the driver refuses the subscriber: the next
// candidate that loads is tried, and here it takes it.
TEST_F(FakeCudaTest, NextLibcuptiIsTriedWhenSubscribeFails) {
  std::string first, second;
  auto env = env_with_second_libcupti(&first, &second);
  env[fake_cuda::kEnvSubscribeError] = refusal(first, CUPTI_ERROR_NOT_INITIALIZED);
  Result r = run_app(env);
  EXPECT_EQ(r.err, "");
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["cupti"], "active (" + second + ", sync deferred)");
  expect_clean_capture(t);
  expect_kernels_under_bricks(t, fake_gpu_app::kLayers * 4u);
}

// Every candidate refuses: one line names each tried path with its error
// (a machine's own libcupti, tried after the fakes, may add an entry).
TEST_F(FakeCudaTest, EveryRefusingLibcuptiIsNamedWithItsError) {
  std::string first, second;
  auto env = env_with_second_libcupti(&first, &second);
  env[fake_cuda::kEnvSubscribeError] = refusal(first, CUPTI_ERROR_NOT_INITIALIZED) + "," +
                                       refusal(second, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
  Result r = run_app(env);
  EXPECT_NE(r.err.find("no usable libcupti"), std::string::npos) << r.err;
  json t = load_trace();
  const std::string status = t["diagnostics"]["cupti"];
  const std::string expected_start = "unavailable: no usable libcupti (" + first +
                                     ": cuptiSubscribe: CUPTI_ERROR_NOT_INITIALIZED; " + second +
                                     ": cuptiSubscribe: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  EXPECT_EQ(status.rfind(expected_start, 0), 0u) << status;
  EXPECT_EQ(status.back(), ')') << status;
  EXPECT_EQ(status.find('\n'), std::string::npos) << status;
  EXPECT_EQ(of_kind(t, "brick").size(), 4u);
  EXPECT_TRUE(of_kind(t, "kernel").empty());
}

// Another tool holding CUPTI is the same on every libcupti: no other
// candidate is tried (the second copy here would take the subscriber).
TEST_F(FakeCudaTest, AnotherSubscriberStopsTheSearch) {
  std::string first, second;
  auto env = env_with_second_libcupti(&first, &second);
  env[fake_cuda::kEnvSubscribeError] =
      refusal(first, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  Result r = run_app(env);
  EXPECT_NE(r.err.find("another CUPTI subscriber is active"), std::string::npos) << r.err;
  json t = load_trace();
  EXPECT_EQ(t["diagnostics"]["cupti"], "unavailable: another CUPTI subscriber is active");
  EXPECT_TRUE(of_kind(t, "kernel").empty());
}

// Start-up fails after two activity kinds were enabled (the third,
// MEMSET, is refused): the agent disables them again, so CUPTI writes no
// record into the buffers of an agent that carries on with CPU scopes only.
TEST_F(FakeCudaTest, FailedStartLeavesNoActivityEnabled) {
  auto env = agent_env();
  env[fake_cuda::kEnvFailActivityEnable] = "3";
  env[fake_cuda::kEnvReportRecords] = "1";
  Result r = run_app(env);
  EXPECT_NE(r.err.find("fake CUPTI: 0 records written to client buffers"), std::string::npos)
      << r.err;
  json t = load_trace();
  const std::string refused =
      "cuptiActivityEnable(" + std::to_string(CUPTI_ACTIVITY_KIND_MEMSET) + ")";
  EXPECT_EQ(t["diagnostics"]["cupti"], "unavailable: " + refused + ": CUPTI_ERROR_NOT_COMPATIBLE");
  EXPECT_EQ(of_kind(t, "brick").size(), 4u);
  EXPECT_TRUE(of_kind(t, "kernel").empty());
  EXPECT_TRUE(of_kind(t, "sync").empty());
}

// "fake CUPTI: ..., K kernel records generated" from the fake's report.
uint64_t kernel_records_generated(const std::string& err) {
  const std::string tail = " kernel records generated";
  size_t end = err.find(tail);
  if (end == std::string::npos) return UINT64_MAX;
  size_t start = err.rfind(' ', end - 1) + 1;
  return std::stoull(err.substr(start, end - start));
}

// scope:NAME windows switch CUPTI's kernel records off between them: the
// fake GPU generates records for the two RmsNorm launches inside the
// windows only, not for the six launches outside (with capture all: eight).
TEST_F(FakeCudaTest, KernelRecordsAreSwitchedOffOutsideWindows) {
  auto env = agent_env();
  env[fake_cuda::kEnvReportRecords] = "1";
  Result all = run_app(env);
  EXPECT_EQ(kernel_records_generated(all.err), 8u) << all.err;
  fs::remove_all(dir_);
  fs::create_directories(dir_);

  env["BRICKPROF_CAPTURE"] = "scope:RmsNorm";
  Result r = run_app(env);
  EXPECT_EQ(kernel_records_generated(r.err), 2u) << r.err;
  json t = load_trace();
  const json& d = t["diagnostics"];
  EXPECT_EQ(of_kind(t, "kernel").size(), 2u);
  EXPECT_EQ(d["records_outside_capture"], 0);
  EXPECT_EQ(d["dropped_activity_records"], 0);
  ASSERT_EQ(d["capture_windows"].size(), 2u);
  // Off from the start to the first window, between the two, and after.
  const json& off = d["activity_off"];
  ASSERT_EQ(off.size(), 3u) << d.dump();
  EXPECT_NE(d["capture"].get<std::string>().find("CUPTI's work records off between windows"),
            std::string::npos)
      << d["capture"];
  for (const json* k : of_kind(t, "kernel"))  // launched while the records were on
    for (const json& span : off)
      EXPECT_FALSE(span["start_ns"] <= (*k)["api_start_ns"] && (*k)["api_start_ns"] <= span["end_ns"])
          << k->dump() << " " << span.dump();
  for (size_t i = 0; i < 2; ++i) {  // each window lies between two off spans
    EXPECT_LE(off[i]["start_ns"], d["capture_windows"][i]["start_ns"]);
    EXPECT_GE(off[i + 1]["start_ns"], d["capture_windows"][i]["end_ns"]);
  }
}

// --capture-every 3 --capture-max 2 over seven graph replays, each in a
// trigger scope: replays 1 and 4 are recorded, CUPTI generates their
// kernels' records only, and the trace says what sampling left out.
TEST_F(FakeCudaTest, SampledWindowsRecordOneInKAndAtMostM) {
  using namespace fake_gpu_app;
  auto env = agent_env();
  env[fake_cuda::kEnvReportRecords] = "1";
  env["BRICKPROF_CAPTURE"] = std::string("scope:") + kReplayScope;
  env["BRICKPROF_CAPTURE_EVERY"] = "3";
  env["BRICKPROF_CAPTURE_MAX"] = "2";
  Result r = run({FAKE_GPU_APP, kGraph, "7"}, env);
  EXPECT_EQ(r.exit_code(), 0) << r.err;
  const size_t per_replay = kLayers * 4;
  EXPECT_EQ(kernel_records_generated(r.err), 2 * per_replay) << r.err;
  json t = load_trace();
  const json& d = t["diagnostics"];
  EXPECT_EQ(of_kind(t, "kernel").size(), 2 * per_replay);
  EXPECT_EQ(of_kind(t, "scope").size(), 2u);  // the two recorded replay scopes
  EXPECT_EQ(d["capture_windows"].size(), 2u);
  EXPECT_NE(d["capture"].get<std::string>().find("every 3, at most 2, 5 of 7 would-be windows"),
            std::string::npos)
      << d["capture"];
  EXPECT_EQ(d["records_outside_capture"], 0);
}

}  // namespace
