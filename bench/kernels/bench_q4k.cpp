// Q4_K GEMV effective bandwidth as a fraction of a read-bandwidth probe,
// both measured in the same run. Rounds interleave a probe pass and a GEMV
// per SIMD level over matrices of the same size, so a change in the machine's
// load (this runs on shared VMs) hits both sides of the ratio alike; the
// median of the per-round ratios is the figure to quote.
//   bench_q4k [seconds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/stats.h"
#include "kernels/bandwidth.h"
#include "kernels/cpu_backend.h"
#include "kernels/cpu_detect.h"
#include "kernels/fp16.h"
#include "kernels/huge_pages.h"
#include "kernels/q4k.h"

namespace bricklayer {
namespace {

// 4096 x 14336 Q4_K (the FFN down shape of an 8B model) is 33 MB; four of
// them, used in turn, are 3.7x a 35.8 MiB LLC, so every GEMV streams its
// weights from DRAM. The probe reads 33 MB per pass from a buffer as large.
constexpr int64_t kRows = 14336, kCols = 4096, kCopies = 4;
constexpr int64_t kBlocksPerRow = kCols / kQK;
constexpr int64_t kMatrixBytes = kRows * kBlocksPerRow * static_cast<int64_t>(sizeof(BlockQ4K));

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// On huge pages, as bricklayer keeps its weights (and its probe buffer).
using Matrix = std::vector<BlockQ4K, HugePageAllocator<BlockQ4K>>;

// Random but valid blocks: the kernel's speed does not depend on the values.
std::vector<Matrix> random_matrices() {
  std::vector<Matrix> all(kCopies);
  std::mt19937_64 rng(1);
  for (auto& mat : all) {
    mat.resize(static_cast<size_t>(kRows * kBlocksPerRow));
    for (auto& b : mat) {
      b.d = float_to_half(0.01f);
      b.dmin = float_to_half(0.005f);
      for (auto& s : b.scales) s = static_cast<uint8_t>(rng());
      for (auto& q : b.qs) q = static_cast<uint8_t>(rng());
    }
  }
  return all;
}

struct Level {
  SimdLevel level;
  const CpuKernels* k;
  double best_s = 1e30;
  std::vector<double> ratios;  // GEMV GB/s over the probe pass just before it, per round
};

// Bytes a GEMV must move: the weights, the activation and the output.
double gemv_bytes(const Level& l) {
  return static_cast<double>(kMatrixBytes) +
         (l.k->gemv_q4k_q8 ? kBlocksPerRow * sizeof(BlockQ8K) : kCols * 4.0) + kRows * 4.0;
}

// One GEMV as bricklayer runs it: quantise x to Q8_K (part of the op), then
// rows split over the pool.
double gemv_seconds(const Level& l, ThreadPool& pool, const BlockQ4K* w, const float* x,
                    BlockQ8K* xq, float* y) {
  const auto t0 = std::chrono::steady_clock::now();
  if (l.k->gemv_q4k_q8) {
    quantize_row_q8k(x, xq, kCols);
    pool.parallel_for(kRows, gemv_rows_per_chunk(kRows, pool.size()), [&](int64_t r0, int64_t r1) {
      l.k->gemv_q4k_q8(w, kBlocksPerRow, r0, r1, xq, 1, y, kRows);
    });
  } else {
    pool.parallel_for(kRows, gemv_rows_per_chunk(kRows, pool.size()), [&](int64_t r0, int64_t r1) {
      l.k->gemv_q4k_f32(w, kBlocksPerRow, r0, r1, x, 1, y, kRows);
    });
  }
  return seconds_since(t0);
}

int run(double seconds) {
  ThreadPool pool(static_cast<int>(std::thread::hardware_concurrency()));
  const auto mats = random_matrices();
  std::vector<float> x(kCols), y(kRows);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& v : x) v = dist(rng);
  std::vector<BlockQ8K> xq(kBlocksPerRow);

  const int64_t probe_floats = kMatrixBytes / 4 / 4096 * 4096;
  const int64_t buffer_floats = probe_floats * kCopies;
  std::unique_ptr<float, void (*)(void*)> probe(
      static_cast<float*>(huge_page_alloc(static_cast<size_t>(buffer_floats) * 4)),
      [](void* p) { huge_page_free(p); });
  if (!probe) return 1;
  pool.parallel_for(buffer_floats, 1 << 18, [&](int64_t a, int64_t b) {
    for (int64_t i = a; i < b; ++i) probe.get()[i] = 0;
  });

  std::vector<Level> levels;
  // The scalar kernel is the reference for correctness, not a speed target.
  for (SimdLevel s : {SimdLevel::Avx512, SimdLevel::Avx2})
    if (simd_supported(s, detect_cpu())) levels.push_back({s, &kernels_for(s), 1e30, {}});
  const CpuKernels& probe_kernels = kernels_for(default_simd_level());

  double probe_best = 1e30;
  int rounds = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    const int64_t copy = rounds % kCopies;
    const double probe_s =
        read_pass_seconds(probe_kernels, pool, probe.get() + copy * probe_floats, probe_floats);
    probe_best = std::min(probe_best, probe_s);
    for (Level& l : levels) {
      const double gemv_s = gemv_seconds(l, pool, mats[static_cast<size_t>(copy)].data(), x.data(),
                                         xq.data(), y.data());
      l.best_s = std::min(l.best_s, gemv_s);
      l.ratios.push_back(gemv_bytes(l) / gemv_s / (probe_floats * 4.0 / probe_s));
    }
    ++rounds;
  } while (seconds_since(start) < seconds);

  const double probe_gbps = probe_floats * 4.0 / probe_best / 1e9;
  std::printf("%d rounds in %.1f s, %d threads, %s\n", rounds, seconds_since(start), pool.size(),
              cpu_model_name().c_str());
  std::printf("read probe          %7.2f GB/s (best pass)\n", probe_gbps);
  for (const Level& l : levels) {
    const double gbps = gemv_bytes(l) / l.best_s / 1e9;
    std::printf(
        "q4k gemv %-10s %7.2f GB/s (best) = %5.1f%% of the best probe; median of per-round "
        "ratios %5.1f%% (goal >= 85%%)\n",
        simd_name(l.level), gbps, 100.0 * gbps / probe_gbps,
        100.0 * brickprof::bench::median(l.ratios));
  }
  return 0;
}

}  // namespace
}  // namespace bricklayer

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  if (!(seconds > 0)) {
    std::fprintf(stderr, "usage: bench_q4k [seconds > 0]\n");
    return 2;
  }
  return bricklayer::run(seconds);
}
