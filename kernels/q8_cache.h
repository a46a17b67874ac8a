// The Q8_K form of one activation tensor, kept while no op rewrites it.
//
// Q, K and V read the same normed input, and so do gate and up: quantising it
// once per norm instead of once per projection saves 3 of 7 quantisations per
// layer. The CPU backend invalidates the entry whenever an op writes the
// tensor, and forgets it at every step.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/q4k_format.h"

namespace bricklayer {

class Q8Cache {
 public:
  using Quantize = void (*)(const float* x, BlockQ8K* y, int64_t n);

  // The Q8_K blocks of `rows` rows of `k` floats at x (tensor id `tensor`),
  // quantised now unless the same tensor and shape is already held.
  const BlockQ8K* get(int tensor, const float* x, int rows, int64_t k, Quantize quantize);
  // Call before any op writes `tensor`.
  void invalidate(int tensor) {
    if (tensor == tensor_) tensor_ = -1;
  }
  void clear() { tensor_ = -1; }
  // Quantisations done so far (tests check that reuse happens).
  int64_t quantizations() const { return quantizations_; }

 private:
  std::vector<BlockQ8K> blocks_;
  int tensor_ = -1;
  int rows_ = 0;
  int64_t k_ = 0;
  int64_t quantizations_ = 0;
};

}  // namespace bricklayer
