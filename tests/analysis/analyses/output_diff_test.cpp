// Output checksums compared across runs (output_diff.h) and the numerics
// view's answers (numerics.h), on runs built here: a layer of two bricks,
// each launching kernels whose outputs are digested from real arrays.
#include "analysis/analyses/output_diff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "analysis/analyses/numerics.h"
#include "analysis/analyses/trace_merge.h"
#include "tests/support/trace_builder.h"

namespace brickprof {
namespace {

using test::add_gpu_node;
using test::add_node;

// The i-th output of a run: values a kernel could have written.
std::vector<float> values(size_t seed) {
  std::vector<float> v(1024);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.01f * float(i * (seed + 1)));
  return v;
}

struct RecordedRun {
  Trace trace;
  int64_t clock = 0;

  // A kernel under `parent` whose output is `out`.
  void kernel(uint32_t parent, std::string_view name, const std::vector<float>& out) {
    const uint32_t k = add_gpu_node(trace, {.kind = NodeKind::kKernel, .name = name,
                                            .parent = parent, .start_ns = clock, .end_ns = clock + 5});
    clock += 10;
    OutputChecksum c;
    c.node = k;
    c.name = trace.strings.intern("arg0");
    c.type = ElementType::kF32;
    c.source = ChecksumSource::kHostCopy;
    c.digest = digest_of(out.data(), out.size(), ElementType::kF32);
    trace.checksums.push_back(c);
  }
};

// Two layers, each: RmsNorm (one kernel), DownProjection (two gemv kernels).
// `edit(layer, brick, kernel, values)` may change what a kernel wrote.
template <typename Edit>
RecordedRun make_run(Edit edit, bool extra_kernel = false) {
  RecordedRun r;
  size_t seed = 0;
  for (int layer = 0; layer < 2; ++layer) {
    const uint32_t l = add_node(r.trace, {.kind = NodeKind::kLayer, .layer_index = layer,
                                          .start_ns = r.clock, .end_ns = r.clock + 1000});
    r.clock += 1;
    for (std::string_view brick : {"RmsNorm", "DownProjection"}) {
      const uint32_t b = add_node(r.trace, {.kind = NodeKind::kBrick, .name = brick, .parent = l,
                                            .start_ns = r.clock, .end_ns = r.clock + 100});
      r.clock += 1;
      const int kernels = brick == "RmsNorm" ? 1 : 2;
      if (extra_kernel && layer == 0 && brick == "RmsNorm") r.kernel(b, "extra", values(99));
      for (int k = 0; k < kernels; ++k) {
        std::vector<float> out = values(seed++);
        edit(layer, brick, k, out);
        r.kernel(b, brick == "RmsNorm" ? "rms" : "gemv", out);
      }
    }
  }
  return r;
}

auto same = [](int, std::string_view, int, std::vector<float>&) {};

TEST(OutputDiff, IdenticalRunsAreDeterministicAndPass) {
  OutputDiff d = diff_outputs(make_run(same).trace, make_run(same).trace, {});
  EXPECT_EQ(d.compared.size(), 6u);
  EXPECT_EQ(d.identical, 6u);
  EXPECT_FALSE(d.failed());
  EXPECT_EQ(d.first_changed(), nullptr);
  std::ostringstream text;
  output_diff_text(d, text);
  EXPECT_NE(text.str().find("bit-identical: deterministic"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("PASS"), std::string::npos);
}

TEST(OutputDiff, NamesTheFirstDivergenceAndWhatFollows) {
  // Layer 1's second gemv scaled by 1.01: beyond rtol 1e-3, by 1e-2.
  auto scaled = [](int layer, std::string_view brick, int k, std::vector<float>& v) {
    if (layer == 1 && brick == "DownProjection" && k == 1)
      for (float& x : v) x *= 1.01f;
  };
  OutputDiff d = diff_outputs(make_run(same).trace, make_run(scaled).trace, {});
  ASSERT_TRUE(d.failed());
  const OutputComparison* first = d.first_beyond();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(d.base[first->base].path,
            "Layer 1 #0 / DownProjection #0 / gemv #1 : arg0 #0");
  EXPECT_EQ(d.base[first->base].launched, "Layer 1 / DownProjection / gemv");
  // A scaled output: the norms say exactly how far (||1.01a - a|| = 0.01||a||).
  EXPECT_NEAR(first->rel, 0.01, 1e-6);
  EXPECT_NEAR(first->cosine, 1.0, 1e-6);
  EXPECT_FALSE(first->identical);
  EXPECT_EQ(d.beyond, 1u);
}

TEST(OutputDiff, TheDistanceOfUnrelatedOutputsIsEstimated) {
  // Another array of the same norm: only the projections see the distance.
  auto replaced = [](int layer, std::string_view brick, int, std::vector<float>& v) {
    if (layer == 0 && brick == "RmsNorm") std::reverse(v.begin(), v.end());
  };
  OutputDiff d = diff_outputs(make_run(same).trace, make_run(replaced).trace, {});
  const OutputComparison* first = d.first_beyond();
  ASSERT_NE(first, nullptr);
  const std::vector<float> a = values(0);
  std::vector<float> b = a;
  std::reverse(b.begin(), b.end());
  double squares = 0, norm = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    squares += (a[i] - b[i]) * (a[i] - b[i]);
    norm += a[i] * a[i];
  }
  const double truth = std::sqrt(squares) / std::sqrt(norm);
  // 16 projections: the estimate's spread is about sqrt(2/16) = 35%.
  EXPECT_GT(first->rel, truth * 0.4);
  EXPECT_LT(first->rel, truth * 1.6);
}

TEST(OutputDiff, WithinToleranceIsNotADivergence) {
  auto nudged = [](int layer, std::string_view, int k, std::vector<float>& v) {
    if (layer == 0 && k == 0) v[3] = std::nextafter(v[3], 2.0f);
  };
  OutputDiff d = diff_outputs(make_run(same).trace, make_run(nudged).trace, {});
  EXPECT_FALSE(d.failed());
  EXPECT_EQ(d.within, 2u);  // layer 0's rms and first gemv: changed in their last bit
  ASSERT_NE(d.first_changed(), nullptr);
  // Zero tolerance: every changed bit is beyond.
  OutputDiff strict = diff_outputs(make_run(same).trace, make_run(nudged).trace, {0, 0, {}});
  EXPECT_EQ(strict.beyond, 2u);
  // In units of the last place: a one-ulp change of one of 1024 elements is far below 1 ulp
  // of the whole output's norm.
  OutputDiff ulps = diff_outputs(make_run(same).trace, make_run(nudged).trace, {0, 0, 1.0});
  EXPECT_EQ(ulps.beyond, 0u);
}

TEST(OutputDiff, AKernelInOneRunOnlyIsSaidAndLinedUpPast) {
  auto scaled = [](int layer, std::string_view brick, int, std::vector<float>& v) {
    if (layer == 1 && brick == "RmsNorm")
      for (float& x : v) x *= 2;
  };
  OutputDiff d = diff_outputs(make_run(same).trace, make_run(scaled, true).trace, {});
  ASSERT_EQ(d.only_next.size(), 1u);
  EXPECT_EQ(d.next[d.only_next[0]].path, "Layer 0 #0 / RmsNorm #0 / extra #0 : arg0 #0");
  EXPECT_TRUE(d.only_base.empty());
  EXPECT_EQ(d.compared.size(), 6u);
  ASSERT_NE(d.first_beyond(), nullptr);
  EXPECT_EQ(d.base[d.first_beyond()->base].path, "Layer 1 #0 / RmsNorm #0 / rms #0 : arg0 #0");
}

// Two threads launch the same kernel outside every scope, each on its own
// data; their launches interleave one way in one run and another way in
// the next, and the threads' ids differ, as two runs of a program do. Each
// thread's outputs line up with its own: nothing differs.
TEST(OutputDiff, ThreadsThatInterleaveDifferentlyLineUpWithThemselves) {
  // `a_first[step]`: whether thread a launches before thread b in that step.
  auto run = [](uint32_t first_tid, std::vector<bool> a_first, bool named) {
    Trace t;
    const uint32_t a = first_tid, b = first_tid + 1;
    if (named) t.threads = {{a, "loader"}, {b, "decoder"}};
    int64_t clock = 0;
    OutputChecksum c;
    c.type = ElementType::kF32;
    c.source = ChecksumSource::kHostCopy;
    c.name = t.strings.intern("arg0");
    for (size_t step = 0; step < a_first.size(); ++step)
      for (int turn = 0; turn < 2; ++turn) {
        const bool is_a = (turn == 0) == a_first[step];
        c.node = add_gpu_node(t, {.kind = NodeKind::kKernel, .name = "scale",
                                  .thread = is_a ? a : b, .start_ns = clock, .end_ns = clock + 5});
        clock += 10;
        c.digest = digest_of(values(10 * (is_a ? 1 : 2) + step).data(), 1024, ElementType::kF32);
        t.checksums.push_back(c);
      }
    return t;
  };
  // Unnamed threads are told apart by which one launched first.
  OutputDiff d = diff_outputs(run(100, {true, true, true}, false), run(200, {true, false, true}, false), {});
  EXPECT_EQ(d.identical, 6u);
  EXPECT_FALSE(d.failed());
  // Named ones by name, whichever launched first.
  d = diff_outputs(run(100, {true, true, true}, true), run(200, {false, false, true}, true), {});
  EXPECT_EQ(d.identical, 6u);
  EXPECT_FALSE(d.failed());
  ASSERT_FALSE(d.base.empty());
  EXPECT_EQ(d.base[0].path.rfind("thread loader > scale #0", 0), 0u) << d.base[0].path;
}

TEST(OutputDiff, ANewNaNIsBeyondAnyTolerance) {
  auto poisoned = [](int layer, std::string_view brick, int, std::vector<float>& v) {
    if (layer == 0 && brick == "DownProjection") v[7] = std::numeric_limits<float>::quiet_NaN();
  };
  RecordedRun bad = make_run(poisoned);
  OutputDiff d = diff_outputs(make_run(same).trace, bad.trace, {1e9, 1e9, {}});
  ASSERT_NE(d.first_beyond(), nullptr);
  EXPECT_EQ(d.first_beyond()->why, "NaN/Inf 0/0, then 1/0");

  NumericsReport n = analyze_numerics(bad.trace);
  ASSERT_TRUE(n.first_nonfinite.has_value());
  EXPECT_EQ(*n.first_nonfinite, 1u);  // after layer 0's rms
  EXPECT_EQ(n.outputs[*n.first_nonfinite].path,
            "Layer 0 #0 / DownProjection #0 / gemv #0 : arg0 #0");
  EXPECT_EQ(n.nonfinite, 2u);
  EXPECT_EQ(n.nan, 2u);
  EXPECT_FALSE(analyze_numerics(make_run(same).trace).first_nonfinite.has_value());
}

TEST(Numerics, ReplicasThatDisagreeAreNamed) {
  Trace r0 = make_run(same).trace, r1 = make_run(same).trace;
  auto off = [](int layer, std::string_view brick, int, std::vector<float>& v) {
    if (layer == 1 && brick == "RmsNorm") v[0] += 1;
  };
  Trace r2 = make_run(off).trace;
  r0.process.rank = 0;
  r1.process.rank = 1;
  r2.process.rank = 2;
  for (Trace* t : {&r0, &r1, &r2})
    for (Node& n : t->nodes) n.thread = 1;
  NumericsReport n = analyze_numerics(merge_traces({r0, r1, r2}));
  EXPECT_EQ(n.replicas_compared, 6u);
  ASSERT_EQ(n.mismatches.size(), 1u);
  EXPECT_EQ(n.mismatches[0].path, "Layer 1 #0 / RmsNorm #0 / rms #0 : arg0 #0");
  EXPECT_EQ(n.mismatches[0].ranks, std::vector<std::string>{"rank 2"});
}

TEST(Digest, HalfAndBfloatAreReadAsTheirValues) {
  const uint16_t half[] = {0x3c00, 0xc000, 0x7e00, 0x7c00};  // 1, -2, NaN, +Inf
  Digest h = digest_of(half, 4, ElementType::kF16);
  EXPECT_EQ(h.sum, -1.0);
  EXPECT_EQ(h.min, -2.0);
  EXPECT_EQ(h.max, 1.0);
  EXPECT_EQ(h.nan, 1u);
  EXPECT_EQ(h.inf, 1u);
  const uint16_t bf[] = {0x3f80, 0x4040};  // 1, 3
  Digest b = digest_of(bf, 2, ElementType::kBf16);
  EXPECT_EQ(b.sum, 4.0);
  EXPECT_DOUBLE_EQ(b.l2, std::sqrt(10.0));
  // FNV-1a 64 of "a", the published test vector.
  EXPECT_EQ(digest_of("a", 1, ElementType::kBytes).fnv1a, 0xaf63dc4c8601ec8cull);
}

}  // namespace
}  // namespace brickprof
