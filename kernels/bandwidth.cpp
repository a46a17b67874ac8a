// The CPU read-bandwidth probe used by bricklayer and the benchmark.
#include "kernels/bandwidth.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "kernels/huge_pages.h"

namespace bricklayer {

double read_pass_seconds(const CpuKernels& k, ThreadPool& pool, const float* base, int64_t n) {
  std::atomic<float> sink{0};
  const auto t0 = std::chrono::steady_clock::now();
  pool.parallel_for(n, 1 << 14, [&](int64_t a, int64_t b) {
    sink.store(k.sum(base + a, b - a), std::memory_order_relaxed);
  });
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

BandwidthResult measure_read_bandwidth(const CpuKernels& k, ThreadPool& pool, int64_t bytes,
                                       double seconds, int64_t segment) {
  const int64_t seg = std::max<int64_t>(segment / 4 / 4096 * 4096, 4096);
  const int64_t n = std::max<int64_t>(bytes / 4 / seg, 1) * seg;
  // On huge pages like the model's weights (huge_pages.h): the fraction
  // bricklayer prints then compares like with like.
  std::unique_ptr<float, void (*)(void*)> buf(
      static_cast<float*>(huge_page_alloc(static_cast<size_t>(n) * 4)),
      [](void* p) { huge_page_free(p); });
  // Touch every page first (and in parallel, so pages spread like the data
  // the kernels read).
  pool.parallel_for(n, 1 << 18, [&](int64_t a, int64_t b) {
    std::memset(buf.get() + a, 0, static_cast<size_t>(b - a) * 4);
  });
  BandwidthResult r;
  r.bytes = seg * 4;
  const auto start = std::chrono::steady_clock::now();
  double best = 1e30;
  do {
    const double dt = read_pass_seconds(k, pool, buf.get() + (r.passes * seg) % n, seg);
    best = dt < best ? dt : best;
    ++r.passes;
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds);
  r.gbps = static_cast<double>(r.bytes) / best / 1e9;
  return r;
}

}  // namespace bricklayer
