// Q4_K quantize / dequantize and the scalar reference dot products.
#pragma once

#include <cstdint>

#include "kernels/q4k_format.h"

namespace bricklayer {

// Unpacks the 12 packed bytes into 8 scales and 8 mins (6 bits each).
void q4k_unpack_scales(const uint8_t packed[12], uint8_t scales[8], uint8_t mins[8]);
void q4k_pack_scales(const uint8_t scales[8], const uint8_t mins[8], uint8_t packed[12]);

// n must be a multiple of 256. Per sub-block the reconstruction error is at
// most max(step / 2, dmin_step / 2) where step = d * scale and dmin_step = dmin
// (see the analysis in q4k.cpp).
void quantize_row_q4k(const float* x, BlockQ4K* y, int64_t n);
void dequantize_row_q4k(const BlockQ4K* x, float* y, int64_t n);

// Activations to Q8_K (n multiple of 256); |x - d*q| <= d/2 with d = amax/127.
void quantize_row_q8k(const float* x, BlockQ8K* y, int64_t n);
void dequantize_row_q8k(const BlockQ8K* x, float* y, int64_t n);

// Reference dots over nb super-blocks: with f32 activations (the exact
// product of the dequantized row) and with Q8_K activations (integer sums per
// sub-block, exactly what the SIMD kernels compute).
float dot_q4k_f32_ref(const BlockQ4K* w, const float* x, int64_t nb);
float dot_q4k_q8k_ref(const BlockQ4K* w, const BlockQ8K* x, int64_t nb);

// Weight index (0..255) of position p in a Q8_K block's nibble order.
inline int q8k_weight_index(int p) {
  const int h = p >> 7, nib = (p >> 6) & 1, c = (p >> 5) & 1, l = p & 31;
  return h * 128 + c * 64 + nib * 32 + l;
}

}  // namespace bricklayer
