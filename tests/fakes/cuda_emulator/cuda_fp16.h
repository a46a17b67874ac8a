// Stands in for CUDA's <cuda_fp16.h> when kernels build for the emulator:
// cuda_prelude.h already defines the half type the kernels use.
#pragma once
#include "cuda_prelude.h"
