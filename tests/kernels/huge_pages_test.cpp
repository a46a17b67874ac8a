// The weight allocator: large arrays 2 MiB-aligned (huge-page candidates), small ones ordinary.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/huge_pages.h"

namespace bricklayer {
namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

TEST(HugePages, LargeAllocationsAreHugePageAligned) {
  for (std::size_t n : {kHuge, kHuge + 1, 5 * kHuge + 12345}) {
    void* p = huge_page_alloc(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHuge, 0u) << n;
    static_cast<char*>(p)[n - 1] = 1;  // the whole range is usable
    huge_page_free(p);
  }
  void* small = huge_page_alloc(100);
  ASSERT_NE(small, nullptr);
  huge_page_free(small);
}

TEST(HugePages, VectorWithTheAllocator) {
  std::vector<float, HugePageAllocator<float>> v(3 * kHuge / sizeof(float), 1.5f);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHuge, 0u);
  v.resize(10);
  EXPECT_EQ(v.back(), 1.5f);
  v.push_back(2.0f);
  EXPECT_EQ(v.size(), 11u);
}

}  // namespace
}  // namespace bricklayer
