// What the agent adds to one cuLaunchKernel on the CPU, without a GPU: a
// driver-API launch loop on the fake driver and fake CUPTI
// (tests/fakes/cuda_driver), run in child processes alternating three ways:
// alone, under a do-nothing CUPTI client (null_cupti_client.cpp: what any
// tracing tool pays, here the fake CUPTI's callback dispatch and record
// writing), and under the agent. agent - null client = brickprof's own
// code per launch. What only a GPU can show (CUPTI's real cost) is
// scripts/gpu-check's launch test.
//   launch_overhead AGENT NULL_CLIENT FAKE_CUDA_DIR [launches]
//   launch_overhead --child LAUNCHES        (one timed loop; prints ns)
#include <cuda.h>
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
constexpr long kDefaultLaunches = 200'000;
// Untimed first: enough records (~70 MB) to cycle every activity buffer
// once, so the timed loop sees the steady state of a long-running process,
// not first-touch page faults in buffers the fake writes synchronously.
constexpr long kWarmupLaunches = 300'000;

const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry empty_kernel()\n{\n\tret;\n}\n";

double now_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// The timed loop: prints "thread-CPU-ns wall-ns" per launch.
int child(long launches) {
  CUdevice device;
  CUcontext ctx;
  CUmodule module;
  CUfunction empty;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuCtxCreate(&ctx, nullptr, 0, device) != CUDA_SUCCESS ||
      cuModuleLoadData(&module, kPtx) != CUDA_SUCCESS ||
      cuModuleGetFunction(&empty, module, "empty_kernel") != CUDA_SUCCESS) {
    std::fprintf(stderr, "launch_overhead: the fake driver refused to start\n");
    return 1;
  }
  auto launch = [&] {
    return cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr);
  };
  for (long i = 0; i < kWarmupLaunches; ++i) launch();
  double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);
  for (long i = 0; i < launches; ++i) {
    if (launch() != CUDA_SUCCESS) return 1;
  }
  double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0, wall = now_ns(CLOCK_MONOTONIC) - w0;
  cuCtxSynchronize();
  std::printf("%.2f %.2f\n", cpu / launches, wall / launches);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--child") == 0) return child(std::atol(argv[2]));
  if (argc < 4) {
    std::fprintf(stderr, "usage: launch_overhead AGENT NULL_CLIENT FAKE_CUDA_DIR [launches]\n");
    return 2;
  }
  const long launches = argc > 4 ? std::atol(argv[4]) : kDefaultLaunches;
  char out_dir[] = "/tmp/brickprof-launch-XXXXXX";
  if (mkdtemp(out_dir) == nullptr) return 1;
  const std::string fake = std::string("LD_LIBRARY_PATH=") + argv[3];
  // Each child prints its thread CPU ns per launch.
  const std::vector<std::string> child = {argv[0], "--child", std::to_string(launches)};
  std::vector<brickprof::bench::ChildCase> configs = {
      {"fake driver alone", {fake}, {}},
      {"+ do-nothing CUPTI client", {fake, std::string("LD_PRELOAD=") + argv[2]}, {}},
      {"+ brickprof agent",
       {fake, std::string("LD_PRELOAD=") + argv[1],
        std::string("BRICKPROF_OUTPUT=") + out_dir + "/trace-%p", "BRICKPROF_FORMATS=json"},
       {}},
  };
  if (!brickprof::bench::run_rounds("launch_overhead", child, configs, kRounds)) return 1;
  const std::vector<double> added = brickprof::bench::differences(configs[2], configs[1]);
  std::string cleanup = std::string("rm -rf ") + out_dir;
  if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", out_dir);
  std::printf("cuLaunchKernel on the fake driver: %ld launches, %d alternating rounds, "
              "thread CPU ns per launch (median)\n", launches, kRounds);
  for (const brickprof::bench::ChildCase& c : configs)
    std::printf("  %-26s %6.0f\n", c.name, brickprof::bench::median(c.values));
  std::printf(
      "  brickprof's own code: %.0f ns/launch (median of per-round differences to the "
      "do-nothing client)\n",
      brickprof::bench::median(added));
  return 0;
}
