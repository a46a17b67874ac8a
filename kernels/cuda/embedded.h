// The CUDA kernel images built by nvcc and embedded by embed.py (sizes exclude the trailing NUL).
#pragma once

#include <cstddef>

extern const unsigned char bricklayer_kernels_ptx[];
extern const std::size_t bricklayer_kernels_ptx_size;
extern const unsigned char bricklayer_kernels_fatbin[];
extern const std::size_t bricklayer_kernels_fatbin_size;
