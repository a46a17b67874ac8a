// What the agent adds to one memory call on the CPU, without a GPU: a
// cuMemAlloc/cuMemFree loop on the fake driver and fake CUPTI, in child
// processes alternating three ways each round, as bench/launch_overhead
// does for launches: alone, under the do-nothing CUPTI client
// (NULL_CUPTI_MODE=api: every callback and record kind the agent takes),
// and under the agent. Each call is one memory event; the agent's cost per
// event is printed against both. Then the trace's bytes per memory event:
// two agent runs, N pairs and none, written as json and json.gz.
//   memory_overhead AGENT NULL_CLIENT FAKE_CUDA_DIR [pairs]
//   memory_overhead --child PAIRS        (one timed loop; prints ns per call)
#include <cuda.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench/child_run.h"
#include "bench/stats.h"

namespace {

constexpr int kRounds = 7;
constexpr long kDefaultPairs = 50'000;
constexpr long kWarmupPairs = 20'000;  // untimed: the first buffers and pages touched
constexpr size_t kBytes = 4096;

double now_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// The timed loop: prints "thread-CPU-ns wall-ns" per call (two calls a pair).
int child(long pairs) {
  CUdevice device;
  CUcontext ctx;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuCtxCreate(&ctx, nullptr, 0, device) != CUDA_SUCCESS) {
    std::fprintf(stderr, "memory_overhead: the fake driver refused to start\n");
    return 1;
  }
  auto pair = [] {
    CUdeviceptr p = 0;
    return cuMemAlloc(&p, kBytes) == CUDA_SUCCESS && cuMemFree(p) == CUDA_SUCCESS;
  };
  for (long i = 0; i < kWarmupPairs && pairs > 0; ++i)
    if (!pair()) return 1;
  const double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
  for (long i = 0; i < pairs; ++i)
    if (!pair()) return 1;
  const double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0, wall = now_ns(CLOCK_MONOTONIC) - w0;
  const double calls = pairs > 0 ? 2.0 * pairs : 1.0;
  std::printf("%.2f %.2f\n", cpu / calls, wall / calls);
  return 0;
}

double file_bytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(std::atol(argv[2]));
  if (argc < 4) {
    std::fprintf(stderr, "usage: memory_overhead AGENT NULL_CLIENT FAKE_CUDA_DIR [pairs]\n");
    return 2;
  }
  const long pairs = argc > 4 ? std::atol(argv[4]) : kDefaultPairs;
  char out_dir[] = "/tmp/brickprof-memory-XXXXXX";
  if (mkdtemp(out_dir) == nullptr) return 1;
  const std::string fake = std::string("LD_LIBRARY_PATH=") + argv[3];
  const std::string agent = std::string("LD_PRELOAD=") + argv[1];
  // Each child prints its thread CPU ns per call.
  const std::vector<std::string> child = {argv[0], "--child", std::to_string(pairs)};
  std::vector<brickprof::bench::ChildCase> configs = {
      {"fake driver alone", {fake}, {}},
      {"+ do-nothing CUPTI client", {fake, std::string("LD_PRELOAD=") + argv[2],
                                     "NULL_CUPTI_MODE=api"}, {}},
      {"+ brickprof agent",
       {fake, agent, std::string("BRICKPROF_OUTPUT=") + out_dir + "/trace-%p",
        "BRICKPROF_FORMATS=json"},
       {}},
  };
  if (!brickprof::bench::run_rounds("memory_overhead", child, configs, kRounds)) return 1;
  // Agent - null client, agent - fake alone, per round.
  const std::vector<double> added = brickprof::bench::differences(configs[2], configs[1]);
  const std::vector<double> over_fake = brickprof::bench::differences(configs[2], configs[0]);
  // Bytes per event: the same program with `pairs` pairs and with none.
  double size[2][2] = {};  // [none, pairs][json, json.gz]
  for (int with = 0; with < 2; ++with) {
    const std::string base = std::string(out_dir) + (with ? "/size-pairs" : "/size-none");
    const std::vector<std::string> env = {fake, agent, "BRICKPROF_OUTPUT=" + base,
                                          "BRICKPROF_FORMATS=json,json.gz"};
    if (brickprof::bench::run_child({argv[0], "--child", std::to_string(with ? pairs : 0)}, env) <=
        0) {
      std::fprintf(stderr, "memory_overhead: a sizing run failed\n");
      return 1;
    }
    size[with][0] = file_bytes(base + ".json");
    size[with][1] = file_bytes(base + ".json.gz");
  }
  std::string cleanup = std::string("rm -rf ") + out_dir;
  if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", out_dir);
  std::printf("cuMemAlloc/cuMemFree (%zu bytes) on the fake driver: %ld pairs, %d alternating "
              "rounds, thread CPU ns per call (median)\n", kBytes, pairs, kRounds);
  for (const brickprof::bench::ChildCase& c : configs)
    std::printf("  %-26s %6.0f\n", c.name, brickprof::bench::median(c.values));
  // Both: the do-nothing client's ring of buffers may cost the calling
  // thread more than the agent's pool does (BENCHMARKS.md).
  std::printf("  agent - fake alone: %.0f ns per memory event; agent - do-nothing client: %.0f "
              "(medians of per-round differences)\n",
              brickprof::bench::median(over_fake), brickprof::bench::median(added));
  const long events = 2 * (pairs + kWarmupPairs);  // the untimed ones are recorded too
  std::printf("trace bytes per memory event (%ld events): json %.1f, json.gz %.1f\n", events,
              (size[1][0] - size[0][0]) / events, (size[1][1] - size[0][1]) / events);
  return 0;
}
