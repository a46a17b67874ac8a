// Software prefetch for the Q4_K GEMV row loops. The hardware prefetcher
// alone left the AVX-512 GEMV at ~60% of the read probe on the 2-core VM this
// was tuned on; fetching 8 KiB (57 blocks) ahead lifted it to ~88% (bench_q4k,
// median of per-round ratios; 2 and 4 KiB were tried too). Internal linkage on purpose:
// SIMD translation units must not share inline code with the scalar one.
#pragma once

#include <xmmintrin.h>

#include "kernels/q4k_format.h"

namespace bricklayer {
namespace {

constexpr int kPrefetchBytesAhead = 8192;

// The three cache lines a 144-byte block ahead may span.
inline void prefetch_block_ahead(const BlockQ4K* block) {
  const char* p = reinterpret_cast<const char*>(block) + kPrefetchBytesAhead;
  _mm_prefetch(p, _MM_HINT_T0);
  _mm_prefetch(p + 64, _MM_HINT_T0);
  _mm_prefetch(p + 128, _MM_HINT_T0);
}

}  // namespace
}  // namespace bricklayer
