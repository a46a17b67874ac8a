// A driver-API program annotated with the brickprof scope API, run against
// the fake driver (see fake_gpu_app.h for what it does). Exits 1 with the
// failing call on stderr if the driver refuses anything.
#include <brickprof/brickprof.h>
#include <cuda.h>
#include <cudaProfiler.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check_call.h"
#include "fake_gpu_app.h"

using namespace fake_gpu_app;

namespace {

// What nvcc would emit for the two kernels, bodies left out.
const char kPtx[] =
    "//\n// fake_gpu_app kernels\n//\n"
    ".version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry _Z14rmsnorm_kernelPfPKfi(\n"
    "\t.param .u64 out,\n\t.param .u64 in,\n\t.param .u32 n\n)\n{\n\tret;\n}\n\n"
    ".visible .entry _Z8qkv_gemvPfPKfS1_i(\n"
    "\t.param .u64 out,\n\t.param .u64 w,\n\t.param .u64 x,\n\t.param .u32 n\n)\n{\n\tret;\n}\n";

CUresult launch(CUfunction f, unsigned grid, CUdeviceptr buffer, CUstream stream = nullptr) {
  int n = 4096;
  void* args[] = {&buffer, &buffer, &buffer, &n};
  return cuLaunchKernel(f, grid, 1, 1, kBlock, 1, 1, 0, stream, args, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  bool keep_context = argc > 1 && std::strcmp(argv[1], kKeepContext) == 0;
  long many = argc > 2 && std::strcmp(argv[1], kMany) == 0 ? std::atol(argv[2]) : 0;
  long replays = argc > 2 && std::strcmp(argv[1], kGraph) == 0 ? std::atol(argv[2]) : 0;
  const char* exec_path = argc > 2 && std::strcmp(argv[1], kExecAtEnd) == 0 ? argv[2] : nullptr;
  bool profile_last_layer = argc > 1 && std::strcmp(argv[1], kProfileLastLayer) == 0;
  bool profile_replays = replays > 0 && argc > 3 && std::strcmp(argv[3], kProfileReplays) == 0;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, nullptr, 0, device));
  CUmodule module;
  CHECK(cuModuleLoadData(&module, kPtx));
  CUfunction rmsnorm, qkv;
  CHECK(cuModuleGetFunction(&rmsnorm, module, kRmsNormKernel));
  CHECK(cuModuleGetFunction(&qkv, module, kQkvKernel));
  CUdeviceptr weights;
  CHECK(cuMemAlloc(&weights, kUploadBytes));
  std::vector<unsigned char> host(kUploadBytes, 1);
  {
    BRICKPROF_SCOPE(kUploadScope);
    CHECK(cuMemcpyHtoD(weights, host.data(), kUploadBytes));
  }
  if (replays > 0) {
    CUstream stream;
    CHECK(cuStreamCreate(&stream, 0));
    CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    {
      BRICKPROF_SCOPE(kStepUploadScope);
      CHECK(cuMemcpyHtoDAsync(weights, host.data(), kStepUploadBytes, stream));
    }
    for (int layer = 0; layer < kLayers; ++layer) {
      BRICKPROF_LAYER(layer);
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
        CHECK(launch(rmsnorm, kRmsNormGrid, weights, stream));
      }
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_QKV_PROJECTION, 3 * 4096);
        for (unsigned grid : kQkvGrids) CHECK(launch(qkv, grid, weights, stream));
      }
    }
    CUgraph graph;
    CUgraphExec exec;
    CHECK(cuStreamEndCapture(stream, &graph));
    CHECK(cuGraphInstantiate(&exec, graph, 0));
    if (profile_replays) CHECK(cuProfilerStart());
    for (long i = 0; i < replays; ++i) {
      BRICKPROF_SCOPE(kReplayScope);
      CHECK(cuGraphLaunch(exec, stream));
    }
    if (profile_replays) CHECK(cuProfilerStop());
    CHECK(cuStreamSynchronize(stream));
  }
  if (many > 0) {
    BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
    for (long i = 0; i < many; ++i) CHECK(launch(rmsnorm, kRmsNormGrid, weights));
  }
  for (int layer = 0; many == 0 && replays == 0 && layer < kLayers; ++layer) {
    bool profiled = profile_last_layer && layer == kLayers - 1;
    if (profiled) CHECK(cuProfilerStart());
    {
      BRICKPROF_LAYER(layer);
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
        CHECK(launch(rmsnorm, kRmsNormGrid, weights));
      }
      {
        BRICKPROF_BRICK(BRICKPROF_BRICK_QKV_PROJECTION, 3 * 4096);
        for (unsigned grid : kQkvGrids) CHECK(launch(qkv, grid, weights));
      }
    }
    if (profiled) CHECK(cuProfilerStop());
  }
  CHECK(cuCtxSynchronize());
  {
    BRICKPROF_SCOPE(kDownloadScope);
    CHECK(cuMemcpyDtoH(host.data(), weights, kDownloadBytes));
  }
  if (exec_path) {
    char* const exec_argv[] = {const_cast<char*>(exec_path), nullptr};
    execv(exec_path, exec_argv);
  }
  CHECK(cuMemFree(weights));
  CHECK(cuModuleUnload(module));
  if (!keep_context) CHECK(cuCtxDestroy(ctx));
  if (many == 0 && replays == 0) std::fputs(kStdout, stdout);
  return 0;
}
