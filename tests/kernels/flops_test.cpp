// The FMA-throughput probe (kernels/flops.h): each table's chains compute
// what they count, and the probe measures a rate on every table it can run.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/cpu_detect.h"
#include "kernels/flops.h"

namespace bricklayer {
namespace {

std::vector<SimdLevel> runnable_levels() {
  std::vector<SimdLevel> out;
  for (SimdLevel l : {SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512})
    if (simd_supported(l, detect_cpu())) out.push_back(l);
  return out;
}

// x <- 0.999 x + 0.001 settles at 1 from any start, so after many rounds
// the sum of every lane of every chain is their number: FLOPs / (2 rounds).
TEST(FmaProbe, ChainsSettleAtOneAndCountTheirFlops) {
  constexpr int64_t kRounds = 20000;  // 0.999^20000 ~ 2e-9
  for (SimdLevel level : runnable_levels()) {
    float sink = 0;
    const double flops = kernels_for(level).fma_chains(kRounds, &sink);
    const double lanes = flops / (2.0 * kRounds);  // chains x SIMD lanes
    EXPECT_GE(lanes, 8) << simd_name(level);
    EXPECT_NEAR(sink, lanes, lanes * 1e-3) << simd_name(level);
  }
}

TEST(FmaProbe, MeasuresARateOnEveryTableItCanRun) {
  ThreadPool pool(2);
  for (SimdLevel level : runnable_levels()) {
    FlopsResult r = measure_fma_throughput(kernels_for(level), pool, 0.01);
    EXPECT_GT(r.gflops, 0) << simd_name(level);
    EXPECT_GE(r.passes, 1) << simd_name(level);
  }
  CpuKernels without = scalar_kernels();
  without.fma_chains = nullptr;
  EXPECT_EQ(measure_fma_throughput(without, pool, 0.01).gflops, 0);  // not measured
}

}  // namespace
}  // namespace bricklayer
