// An allocator that lets large weight arrays sit on transparent huge pages.
//
// A decode step streams ~110 MB of weights once each; on 4 KiB pages that is
// a TLB miss every 4 KiB of every GEMV. Backing them with 2 MiB pages made an
// isolated 6.5 MB GEMV 5-19 % faster on the 2-core VM (THP in "madvise" mode,
// so the hint is needed). Small arrays keep the ordinary allocator: rounding
// them up to 2 MiB would waste more memory than it saves in misses.
#pragma once

#include <cstddef>
#include <new>

namespace bricklayer {

// Allocates n bytes; for n >= 2 MiB, 2 MiB-aligned, rounded up to whole huge
// pages and marked MADV_HUGEPAGE before anything touches it.
void* huge_page_alloc(std::size_t n);
void huge_page_free(void* p) noexcept;

template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(huge_page_alloc(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { huge_page_free(p); }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept {
    return false;
  }
};

}  // namespace bricklayer
