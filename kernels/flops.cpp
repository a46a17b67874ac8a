// The CPU FLOP-throughput probe used by bricklayer (see flops.h).
#include "kernels/flops.h"

#include <atomic>
#include <chrono>

namespace bricklayer {
namespace {

// Rounds per chunk: about 0.1-0.5 ms, so waking the pool is small against a
// pass, and several chunks per thread even out threads that start late.
constexpr int64_t kRoundsPerChunk = 1 << 17;
constexpr int kChunksPerThread = 8;

}  // namespace

FlopsResult measure_fma_throughput(const CpuKernels& k, ThreadPool& pool, double seconds) {
  FlopsResult r;
  if (k.fma_chains == nullptr) return r;
  const int64_t chunks = static_cast<int64_t>(pool.size()) * kChunksPerThread;
  std::atomic<double> chunk_flops{0};
  std::atomic<float> sink{0};
  double best = 1e30;
  const auto start = std::chrono::steady_clock::now();
  do {
    const auto t0 = std::chrono::steady_clock::now();
    pool.parallel_for(chunks, 1, [&](int64_t a, int64_t b) {
      float s = 0;
      for (int64_t c = a; c < b; ++c)
        chunk_flops.store(k.fma_chains(kRoundsPerChunk, &s), std::memory_order_relaxed);
      sink.store(s, std::memory_order_relaxed);
    });
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = dt < best ? dt : best;
    ++r.passes;
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           seconds);
  r.gflops = chunk_flops.load() * static_cast<double>(chunks) / best / 1e9;
  return r;
}

}  // namespace bricklayer
