// Q8Cache: quantise an activation tensor once for every MulMat that reads it.
#include "kernels/q8_cache.h"

#include <cstddef>

namespace bricklayer {

const BlockQ8K* Q8Cache::get(int tensor, const float* x, int rows, int64_t k, Quantize quantize) {
  const int64_t nb = k / kQK;
  if (tensor != tensor_ || rows != rows_ || k != k_) {
    blocks_.resize(static_cast<std::size_t>(rows * nb));
    for (int t = 0; t < rows; ++t) quantize(x + t * k, blocks_.data() + t * nb, k);
    tensor_ = tensor;
    rows_ = rows;
    k_ = k;
    ++quantizations_;
  }
  return blocks_.data();
}

}  // namespace bricklayer
