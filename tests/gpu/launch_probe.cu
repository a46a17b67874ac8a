// GPU probe for scripts/gpu-check: known numbers of launches under NVTX
// layer/brick ranges, eagerly or replayed from a CUDA graph captured inside
// the bricks, plus a module loaded from PTX text and timed launch loops
// (bench: empty kernels; graphbench: a graph of empty kernels; timer:
// short kernels that stamp the GPU's global timer at their first block's
// start and last block's end, to hold the trace's kernel times against).
// Prints what it did as one JSON line so the checker can compare counts.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// Grid-stride: one pass with a thread per element, or a few resident
// blocks looping (PROBE_GRID).
__global__ void probe_norm(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = x[i] * 0.5f + 1.0f;
}
__global__ void probe_gate(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = x[i] > 0.f ? x[i] : 0.f;
}
__global__ void probe_empty() {}

// The GPU's own nanosecond clock, the one %globaltimer exposes.
__device__ __forceinline__ unsigned long long global_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

// A short kernel that times itself: thread 0 of each block reads the
// global timer before and after the block's work; the earliest start and
// the latest end of all blocks land in stamps[0] and stamps[1] (set to
// ~0 and 0 beforehand). The work: `iters` dependent FMAs per thread.
__global__ void probe_timer(unsigned long long* stamps, float* sink, int iters) {
  __shared__ unsigned long long start;
  if (threadIdx.x == 0) start = global_timer();
  __syncthreads();
  float v = threadIdx.x * 1e-3f;
  for (int i = 0; i < iters; ++i) v = v * 0.999f + 1e-4f;
  if (v == -1.f) sink[blockIdx.x] = v;  // never true: keeps the loop
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&stamps[0], start);
    atomicMax(&stamps[1], global_timer());
  }
}

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
  // PROBE_ELEMS sizes the norm/gate kernels' buffer and PROBE_GRID caps
  // their blocks (default: a thread per element). The ncu comparison wants
  // long kernels of few blocks: a fixed offset between the two tools' start
  // and end points stays small against the duration, and so does what
  // CUPTI's kernel records cost each block.
  const char* elems_env = std::getenv("PROBE_ELEMS");
  const char* grid_env = std::getenv("PROBE_GRID");
  const int elems = elems_env != nullptr ? std::atoi(elems_env) : 1 << 20;
  const int blocks = grid_env != nullptr ? std::atoi(grid_env) : (elems + 255) / 256;
  if (elems < 256 || blocks < 1) {
    std::fprintf(stderr, "PROBE_ELEMS: want at least 256; PROBE_GRID: at least 1\n");
    return 2;
  }
  float* d = nullptr;
  CHECK(cudaMalloc(&d, static_cast<size_t>(elems) * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  dim3 grid(blocks), block(256);

  if (mode == "timer") {  // n short kernels, each stamped by the GPU's global timer
    const int timer_blocks = grid_env != nullptr ? blocks : 132;
    const char* iters_env = std::getenv("PROBE_TIMER_ITERS");
    const int iters = iters_env != nullptr ? std::atoi(iters_env) : 2000;
    unsigned long long* stamps = nullptr;
    CHECK(cudaMalloc(&stamps, 2 * sizeof(unsigned long long) * n));
    std::vector<unsigned long long> init(2 * n);
    for (int i = 0; i < n; ++i) init[2 * i] = ~0ull, init[2 * i + 1] = 0;
    CHECK(cudaMemcpy(stamps, init.data(), init.size() * sizeof init[0], cudaMemcpyHostToDevice));
    CHECK(cudaDeviceSynchronize());
    nvtxRangePushA("TimerProbe");
    for (int i = 0; i < n; ++i) {
      probe_timer<<<timer_blocks, 256, 0, s>>>(stamps + 2 * i, d, iters);
      CHECK(cudaStreamSynchronize(s));  // one at a time: no overlap to blur the edges
    }
    nvtxRangePop();
    CHECK(cudaMemcpy(init.data(), stamps, init.size() * sizeof init[0], cudaMemcpyDeviceToHost));
    std::printf("{\"mode\":\"timer\",\"launches\":%d,\"blocks\":%d,\"iters\":%d,\"stamps_ns\":[", n,
                timer_blocks, iters);
    for (int i = 0; i < n; ++i)
      std::printf("%s[%llu,%llu]", i ? "," : "", init[2 * i], init[2 * i + 1]);
    std::printf("]}\n");
    return 0;
  }

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

  // Replays of one graph of `nodes` empty kernels, n back to back (host
  // time per cudaGraphLaunch; once the queue is full the GPU sets the pace)
  // and n each followed by a sync (the launch call alone, and the replay).
  if (mode == "graphbench") {
    const int nodes = argc > 3 ? std::atoi(argv[3]) : 75;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < nodes; ++i) probe_empty<<<1, 1, 0, s>>>();
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 100; ++i) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    using Clock = std::chrono::steady_clock;
    auto ns_each = [n](Clock::duration d) {
      return std::chrono::duration<double, std::nano>(d).count() / n;
    };
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) CHECK(cudaGraphLaunch(exec, s));
    auto back_to_back = Clock::now() - t0;
    CHECK(cudaStreamSynchronize(s));
    Clock::duration call{}, replay{};
    for (int i = 0; i < n; ++i) {
      auto start = Clock::now();
      CHECK(cudaGraphLaunch(exec, s));
      call += Clock::now() - start;
      CHECK(cudaStreamSynchronize(s));
      replay += Clock::now() - start;
    }
    std::printf(
        "{\"mode\":\"graphbench\",\"nodes\":%d,\"launches\":%d,\"ns_per_graph_launch\":%.1f,"
        "\"ns_per_launch_call_synced\":%.1f,\"ns_per_replay_synced\":%.1f}\n",
        nodes, n, ns_each(back_to_back), ns_each(call), ns_each(replay));
    return 0;
  }

  // Two layers of NVTX-named bricks, n launches of each kernel per brick.
  // Eager mode adds a memset (the captured graph holds kernels only) and
  // puts each probe_norm launch between CUDA events: the program's own
  // measure of each kernel, a third opinion beside the trace and ncu.
  const int layers = 2;
  std::vector<cudaEvent_t> marks;
  auto run_layers = [&](bool eager) -> cudaError_t {
    for (int l = 0; l < layers; ++l) {
      char name[16];
      std::snprintf(name, sizeof name, "Layer %d", l);
      nvtxRangePushA(name);
      nvtxRangePushA("RmsNorm");
      for (int i = 0; i < n; ++i) {
        if (eager) {
          marks.resize(marks.size() + 2);
          for (cudaEvent_t* e : {&marks.end()[-2], &marks.end()[-1]})
            if (cudaError_t err = cudaEventCreate(e); err != cudaSuccess) return err;
          if (cudaError_t err = cudaEventRecord(marks.end()[-2], s); err != cudaSuccess) return err;
        }
        probe_norm<<<grid, block, 0, s>>>(d, elems);
        if (eager) {
          if (cudaError_t err = cudaEventRecord(marks.back(), s); err != cudaSuccess) return err;
        }
      }
      nvtxRangePop();
      nvtxRangePushA("GateProjection");
      for (int i = 0; i < n; ++i) probe_gate<<<grid, block, 0, s>>>(d, elems);
      if (eager) {
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
  std::vector<float> event_ms;
  for (size_t i = 0; i + 1 < marks.size(); i += 2) {
    event_ms.push_back(0);
    CHECK(cudaEventElapsedTime(&event_ms.back(), marks[i], marks[i + 1]));
  }
  std::sort(event_ms.begin(), event_ms.end());
  const double norm_event_ns = event_ms.empty() ? 0 : 1e6 * event_ms[event_ms.size() / 2];

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
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(host.data(), d, host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  std::printf(
      "{\"mode\":\"%s\",\"per_brick_launches\":%d,\"layers\":%d,\"replays\":%d,"
      "\"kernels\":{\"probe_norm\":%d,\"probe_gate\":%d},\"probe_norm_event_ns\":%.0f}\n",
      mode.c_str(), n, layers, replays, n * layers * replays, n * layers * replays, norm_event_ns);
  return 0;
}
