// GPU probe for scripts/gpu-check: known numbers of launches under NVTX
// layer/brick ranges, eagerly or replayed from a CUDA graph captured inside
// the bricks, plus a module loaded from PTX text and a timed launch loop.
// Prints what it did as one JSON line so the checker can compare counts.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

__global__ void probe_norm(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}
__global__ void probe_gate(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0.f ? x[i] : 0.f;
}
__global__ void probe_empty() {}

#define CHECK(x)                                                          \
  do {                                                                    \
    cudaError_t e_ = (x);                                                 \
    if (e_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
      return 2;                                                           \
    }                                                                     \
  } while (0)

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "eager";
  int n = argc > 2 ? std::atoi(argv[2]) : 10;
  if (mode == "fork") {
    // CUDA works in a forked child only if the parent never initialised it:
    // the agent, loaded at start, must not have done so behind our back.
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      float* p = nullptr;
      CHECK(cudaMalloc(&p, 1024));
      probe_empty<<<1, 1>>>();
      CHECK(cudaDeviceSynchronize());
      std::printf("{\"mode\":\"fork\",\"child\":\"ok\"}\n");
      return 0;
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  }
  const int elems = 1 << 20;
  float* d = nullptr;
  CHECK(cudaMalloc(&d, elems * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  dim3 grid((elems + 255) / 256), block(256);

  if (mode == "bench") {  // host launch overhead of an empty kernel
    for (int i = 0; i < 1000; ++i) probe_empty<<<1, 1, 0, s>>>();
    CHECK(cudaStreamSynchronize(s));
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) probe_empty<<<1, 1, 0, s>>>();
    auto t1 = std::chrono::steady_clock::now();
    CHECK(cudaStreamSynchronize(s));
    double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
    std::printf("{\"mode\":\"bench\",\"launches\":%d,\"ns_per_launch\":%.1f}\n", n, ns);
    return 0;
  }

  // Two layers of NVTX-named bricks, n launches of each kernel per brick;
  // eager mode adds a memset (the captured graph holds kernels only).
  const int layers = 2;
  auto run_layers = [&](bool with_memset) -> cudaError_t {
    for (int l = 0; l < layers; ++l) {
      char name[16];
      std::snprintf(name, sizeof name, "Layer %d", l);
      nvtxRangePushA(name);
      nvtxRangePushA("RmsNorm");
      for (int i = 0; i < n; ++i) probe_norm<<<grid, block, 0, s>>>(d, elems);
      nvtxRangePop();
      nvtxRangePushA("GateProjection");
      for (int i = 0; i < n; ++i) probe_gate<<<grid, block, 0, s>>>(d, elems);
      if (with_memset) {
        if (cudaError_t e = cudaMemsetAsync(d, 0, 4096, s); e != cudaSuccess) return e;
      }
      nvtxRangePop();
      nvtxRangePop();
    }
    return cudaSuccess;
  };
  int replays = 1;
  if (mode == "eager") {
    CHECK(run_layers(true));
  } else if (mode == "graph") {
    replays = 3;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(run_layers(false));
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int r = 0; r < replays; ++r) CHECK(cudaGraphLaunch(exec, s));  // outside any brick
  }
  CHECK(cudaStreamSynchronize(s));

  // A module from PTX text (the registry must hash exactly these bytes).
  std::string ptx_hash_file = argc > 3 ? argv[3] : "";
  if (!ptx_hash_file.empty()) {
    std::ifstream in(ptx_hash_file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string ptx = ss.str();
    CUmodule mod;
    if (cuModuleLoadData(&mod, ptx.c_str()) != CUDA_SUCCESS) return 3;
    cuModuleUnload(mod);
  }
  std::vector<float> host(elems, 1.0f);
  CHECK(cudaMemcpy(d, host.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(host.data(), d, elems * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  std::printf(
      "{\"mode\":\"%s\",\"per_brick_launches\":%d,\"layers\":%d,\"replays\":%d,"
      "\"kernels\":{\"probe_norm\":%d,\"probe_gate\":%d}}\n",
      mode.c_str(), n, layers, replays, n * layers * replays, n * layers * replays);
  return 0;
}
