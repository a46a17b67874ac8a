// What only CUPTI's memory records show, on the fake driver: a pool whose
// reserve grows with its allocations and shrinks at trims, and a captured
// graph with a memory-allocation and a memory-free node, launched twice.
// It writes what the driver said (argv[1]): "reserve B" after each pool
// step (the device's used bytes: only the pool holds memory then), "graph
// ADDRESS BYTES" for the graph's allocation.
#include <brickprof/brickprof.h>
#include <cuda.h>

#include <cinttypes>
#include <cstdio>

#include "../../fakes/cuda_driver/check_call.h"

namespace {

constexpr uint64_t kMiB = 1ull << 20;

FILE* g_truth = nullptr;

int note_reserve() {
  size_t free = 0, total = 0;
  CHECK(cuMemGetInfo(&free, &total));
  std::fprintf(g_truth, "reserve %" PRIu64 "\n", static_cast<uint64_t>(total - free));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (g_truth = std::fopen(argv[1], "w")) == nullptr) return 2;
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, nullptr, 0, device));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, 0));
  {
    BRICKPROF_SCOPE("pool");
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CUmemoryPool pool;
    CHECK(cuMemPoolCreate(&pool, &props));
    CUdeviceptr a, b;
    CHECK(cuMemAllocFromPoolAsync(&a, 3 * kMiB, pool, stream));
    if (note_reserve()) return 1;
    CHECK(cuMemAllocFromPoolAsync(&b, 2 * kMiB, pool, stream));
    if (note_reserve()) return 1;
    CHECK(cuMemFreeAsync(a, stream));
    if (note_reserve()) return 1;
    CHECK(cuMemPoolTrimTo(pool, 0));
    if (note_reserve()) return 1;
    CHECK(cuMemFreeAsync(b, stream));
    if (note_reserve()) return 1;
    CHECK(cuMemPoolTrimTo(pool, 0));
    if (note_reserve()) return 1;
    CHECK(cuMemPoolDestroy(pool));
  }
  CUgraphExec exec;
  {
    BRICKPROF_SCOPE("capture");
    CHECK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr scratch;
    CHECK(cuMemAllocAsync(&scratch, 8 * kMiB, stream));
    CHECK(cuMemFreeAsync(scratch, stream));
    CUgraph graph;
    CHECK(cuStreamEndCapture(stream, &graph));
    CHECK(cuGraphInstantiate(&exec, graph, 0));
    std::fprintf(g_truth, "graph %" PRIu64 " %" PRIu64 "\n", static_cast<uint64_t>(scratch),
                 8 * kMiB);
  }
  for (int step = 0; step < 2; ++step) {
    BRICKPROF_SCOPE("replay");
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
  }
  std::fclose(g_truth);
  std::puts("done");
  return 0;
}
