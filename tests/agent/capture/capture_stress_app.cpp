// Capture windows opened and closed many times while other threads launch
// kernels, on the fake driver: the agent switches CUPTI's records at every
// edge. Run under the agent (and under ThreadSanitizer by
// scripts/tsan-stress); it must finish, exit 0 and leave a trace.
//   capture_stress_app scope|profiler TOGGLES LAUNCHERS
// scope: each window is a scope named "window" (BRICKPROF_CAPTURE=
// scope:window); profiler: cuProfilerStart/Stop (cuda-profiler-api).
// Each window holds one launch of the toggling thread.
#include <brickprof/brickprof.h>
#include <cuda.h>
#include <cudaProfiler.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

const char kPtx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry _Z4stepPf(\n\t.param .u64 out\n)\n{\n\tret;\n}\n";

bool ok(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return true;
  std::fprintf(stderr, "%s failed: %d\n", what, static_cast<int>(r));
  return false;
}

bool launch(CUfunction f, CUdeviceptr buffer) {
  void* args[] = {&buffer};
  return ok(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::strcmp(argv[1], "scope") != 0 && std::strcmp(argv[1], "profiler") != 0)) {
    std::fprintf(stderr, "usage: capture_stress_app scope|profiler TOGGLES LAUNCHERS\n");
    return 2;
  }
  const bool by_scope = std::strcmp(argv[1], "scope") == 0;
  const long toggles = std::atol(argv[2]);
  const int launchers = std::atoi(argv[3]);
  CUdevice device;
  CUcontext ctx;
  CUmodule module;
  CUfunction step;
  CUdeviceptr buffer;
  if (!ok(cuInit(0), "cuInit") || !ok(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !ok(cuCtxCreate(&ctx, nullptr, 0, device), "cuCtxCreate") ||
      !ok(cuModuleLoadData(&module, kPtx), "cuModuleLoadData") ||
      !ok(cuModuleGetFunction(&step, module, "_Z4stepPf"), "cuModuleGetFunction") ||
      !ok(cuMemAlloc(&buffer, 4096), "cuMemAlloc"))
    return 1;

  std::atomic<bool> stop{false}, failed{false};
  std::atomic<long> launched{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < launchers; ++i) {
    threads.emplace_back([&] {
      if (!ok(cuCtxSetCurrent(ctx), "cuCtxSetCurrent")) failed = true;
      while (!stop.load() && !failed.load()) {
        if (!launch(step, buffer)) failed = true;
        launched.fetch_add(1);
      }
    });
  }
  for (long i = 0; i < toggles && !failed.load(); ++i) {
    if (by_scope) {
      BRICKPROF_SCOPE("window");
      if (!launch(step, buffer)) failed = true;
    } else {
      if (!ok(cuProfilerStart(), "cuProfilerStart") || !launch(step, buffer) ||
          !ok(cuProfilerStop(), "cuProfilerStop"))
        failed = true;
    }
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  if (failed.load() || !ok(cuCtxSynchronize(), "cuCtxSynchronize")) return 1;
  std::printf("%ld windows, %ld launches from other threads\n", toggles, launched.load());
  return 0;
}
