// Huge-page-friendly allocation for model weights (see huge_pages.h for why).
#include "kernels/huge_pages.h"

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace bricklayer {

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
}

void* huge_page_alloc(std::size_t n) {
  if (n == 0) n = 1;
  void* p = nullptr;
  if (n < kHugePage) {
    p = std::malloc(n);
  } else {
    const std::size_t rounded = (n + kHugePage - 1) / kHugePage * kHugePage;
    p = std::aligned_alloc(kHugePage, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Only a hint: without THP (or with it set to "never") pages stay 4 KiB.
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  }
  if (!p) throw std::bad_alloc();
  return p;
}

void huge_page_free(void* p) noexcept { std::free(p); }

}  // namespace bricklayer
