// Helpers the AVX2 and AVX-512 Q4_K GEMV row loops share. Internal linkage
// on purpose: SIMD translation units must not share inline code with the
// scalar one (the linker could pick a copy built with the wrong flags).
//
// Software prefetch: the hardware prefetcher alone left the AVX-512 GEMV at
// ~60% of the read probe on the 2-core VM this was tuned on; fetching 8 KiB
// (57 blocks) ahead lifted it to ~88% (bench_q4k, median of per-round ratios;
// 2 and 4 KiB were tried too).
#pragma once

#include <xmmintrin.h>

#include <cstdint>
#include <cstring>

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

// The 8 six-bit scales and mins of a Q4_K block as two 8-byte words (see
// q4k_format.h for the packing; here done four bytes at a time).
inline void unpack_scales(const uint8_t* packed, uint64_t* scales, uint64_t* mins) {
  uint32_t w[3];
  std::memcpy(w, packed, 12);
  const uint32_t sc_lo = w[0] & 0x3f3f3f3fu;
  const uint32_t mn_lo = w[1] & 0x3f3f3f3fu;
  const uint32_t sc_hi = (w[2] & 0x0f0f0f0fu) | ((w[0] >> 2) & 0x30303030u);
  const uint32_t mn_hi = ((w[2] >> 4) & 0x0f0f0f0fu) | ((w[1] >> 2) & 0x30303030u);
  *scales = sc_lo | (static_cast<uint64_t>(sc_hi) << 32);
  *mins = mn_lo | (static_cast<uint64_t>(mn_hi) << 32);
}

}  // namespace
}  // namespace bricklayer
