// Q8_K activations as bricklayer's CUDA kernels keep them: the values of the
// CPU's BlockQ8K (kernels/q4k_format.h: int8 per 256, nibble order, bsums
// per sub-block of 32), laid out for 16-byte loads (qs first, 288 bytes).
// Shared by kernels.cu and the host code that sizes the buffers.
#pragma once

#include <cstdint>

struct alignas(16) BlockQ8KGpu {
  int8_t qs[256];
  int16_t bsums[8];
  float d;
  float pad[3];
};
static_assert(sizeof(BlockQ8KGpu) == 288, "Q8_K GPU block");
