// Block layouts of Q4_K weights and Q8_K activations (plain structs, no code).
#pragma once

#include <cstdint>

namespace bricklayer {

// Weights per super-block, and per sub-block (each with its own scale and min).
constexpr int kQK = 256;
constexpr int kSubBlock = 32;

// Q4_K super-block, byte-compatible with llama.cpp's block_q4_K:
//   d, dmin   fp16 super-scales for the sub-block scales and mins
//   scales    8 six-bit scales and 8 six-bit mins, packed into 12 bytes:
//             bytes 0-3  : scale[0..3] in bits 0-5, scale[4..7] >> 4 in bits 6-7
//             bytes 4-7  : min[0..3]   in bits 0-5, min[4..7]   >> 4 in bits 6-7
//             bytes 8-11 : scale[4..7] & 15 in bits 0-3, min[4..7] & 15 in bits 4-7
//   qs        128 bytes, four chunks of 32: chunk c holds weights 64c..64c+31 in
//             the low nibbles and 64c+32..64c+63 in the high nibbles.
// Weight i of sub-block j is  d * scale[j] * q - dmin * min[j].
struct BlockQ4K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4K) == 144, "Q4_K super-block is 144 bytes");

// Activations quantized to int8 per 256 values (our own format, not llama's):
// x = d * q. The int8 values are stored in "nibble order", the order in which
// a vector unit unpacks a Q4_K block: for half h (qs bytes 64h..64h+63), first
// the 64 values under the low nibbles, then the 64 under the high nibbles.
// So a SIMD kernel can split nibbles and multiply by a straight load, for 32-
// or 64-byte vectors alike. bsums[j] is the sum of the int8 values of the
// natural sub-block j (for the min term).
struct BlockQ8K {
  float d;
  int16_t bsums[8];
  int8_t qs[kQK];
};
static_assert(sizeof(BlockQ8K) == 276, "Q8_K block is 276 bytes");

}  // namespace bricklayer
