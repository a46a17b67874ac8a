// digest_of against the tree rule of trace/model/checksum_tree.h, written
// out again here by hand (plain loops over plain vectors), so a change of
// either is caught.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "trace/model/checksum.h"

namespace brickprof {
namespace {

uint64_t fnv1a(const unsigned char* p, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// The reference's record: the hash, the in-order sum and L1, the extremes
// of the finite elements, the non-finite counts.
struct Node {
  uint64_t hash;
  double sum = 0, l1 = 0;
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  uint64_t nan = 0, inf = 0;
};

Node reference_tree(const std::vector<float>& values) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  const size_t total = values.size() * sizeof(float);
  std::vector<Node> level;
  for (size_t at = 0; at < total; at += 4096) {
    const size_t n = std::min<size_t>(4096, total - at);
    Node c{fnv1a(bytes + at, n)};
    for (size_t i = at / 4; i < (at + n) / 4; ++i) {
      const double x = values[i];
      if (std::isnan(x)) {
        ++c.nan;
      } else if (std::isinf(x)) {
        ++c.inf;
      } else {
        c.sum += x;
        c.l1 += std::fabs(x);
        c.min = std::min(c.min, x);
        c.max = std::max(c.max, x);
      }
    }
    level.push_back(c);
  }
  while (level.size() > 1) {
    std::vector<Node> up;
    for (size_t g = 0; g < level.size(); g += 64) {
      Node p{0xcbf29ce484222325ull};
      for (size_t m = g; m < std::min(level.size(), g + 64); ++m) {
        unsigned char le[8];
        for (int b = 0; b < 8; ++b) le[b] = static_cast<unsigned char>(level[m].hash >> (8 * b));
        p.hash = fnv1a(le, 8, p.hash);
        p.sum += level[m].sum;
        p.l1 += level[m].l1;
        p.min = std::min(p.min, level[m].min);
        p.max = std::max(p.max, level[m].max);
        p.nan += level[m].nan;
        p.inf += level[m].inf;
      }
      up.push_back(p);
    }
    level = up;
  }
  return level[0];
}

std::vector<float> random_values(size_t n) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

void expect_tree(const std::vector<float>& values) {
  const Node want = reference_tree(values);
  const Digest got = digest_of(values.data(), values.size(), ElementType::kF32);
  EXPECT_EQ(got.fnv1a, want.hash);
  EXPECT_EQ(got.count, values.size());
  EXPECT_EQ(got.sum, want.sum);  // bit for bit: the same additions in the same order
  EXPECT_EQ(got.l1, want.l1);
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  EXPECT_EQ(got.nan, want.nan);
  EXPECT_EQ(got.inf, want.inf);
}

TEST(DigestTree, AMebibyteIsHashedAndSummedByTheTreeRule) {
  std::vector<float> values = random_values((1 << 20) / sizeof(float));  // 256 chunks: two levels
  values[5000] = std::numeric_limits<float>::quiet_NaN();
  values[200000] = -std::numeric_limits<float>::infinity();
  expect_tree(values);
  // Not the plain chain: that would make the GPU walk every byte in order.
  EXPECT_NE(digest_of(values.data(), values.size(), ElementType::kF32).fnv1a,
            fnv1a(reinterpret_cast<const unsigned char*>(values.data()), values.size() * 4));
}

TEST(DigestTree, AShortLastChunkAndAShortLastGroup) {
  expect_tree(random_values(65 * 1024 + 3));  // 65 chunks, the last of 12 bytes
}

TEST(DigestTree, UpToOneChunkIsThePlainFnv1aOfTheBytes) {
  for (size_t n : {0, 1, 1000, 1024}) {
    const std::vector<float> values = random_values(n);
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    const Digest d = digest_of(values.data(), n, ElementType::kF32);
    EXPECT_EQ(d.fnv1a, fnv1a(bytes, n * sizeof(float))) << n;
    double sum = 0;
    for (float x : values) sum += x;
    EXPECT_EQ(d.sum, sum) << n;
  }
  const unsigned char raw[3] = {'a', 'b', 'c'};
  EXPECT_EQ(digest_of(raw, 3, ElementType::kBytes).fnv1a, fnv1a(raw, 3));
}

TEST(DigestTree, HalfFloatsAreReadFromTheirBits) {
  // 1.0, -2.0, the smallest subnormal, +inf, a NaN; as f16 and as bf16.
  const uint16_t half[] = {0x3c00, 0xc000, 0x0001, 0x7c00, 0x7e00};
  const Digest h = digest_of(half, 5, ElementType::kF16);
  EXPECT_EQ(h.sum, 1.0 - 2.0 + std::ldexp(1.0, -24));
  EXPECT_EQ(h.min, -2.0);
  EXPECT_EQ(h.inf, 1u);
  EXPECT_EQ(h.nan, 1u);
  const uint16_t bf16[] = {0x3f80, 0xc000, 0x7f80, 0x7fc0};
  const Digest b = digest_of(bf16, 4, ElementType::kBf16);
  EXPECT_EQ(b.sum, -1.0);
  EXPECT_EQ(b.inf, 1u);
  EXPECT_EQ(b.nan, 1u);
}

TEST(DigestTree, NoFiniteElementLeavesTheExtremesAtZero) {
  const float values[] = {std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity()};
  const Digest d = digest_of(values, 2, ElementType::kF32);
  EXPECT_EQ(d.min, 0.0);
  EXPECT_EQ(d.max, 0.0);
  EXPECT_EQ(d.nan + d.inf, 2u);
}

}  // namespace
}  // namespace brickprof
