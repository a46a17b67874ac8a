// The emulator tests' kernels (test_kernels.cu) built as host code, with
// the race instrumentation like bricklayer's, and their table.
#include "test_kernels.cu"

#include "kernel_table.h"

namespace cuda_emulator {

std::span<const KernelEntry> kernel_table() {
  static const KernelEntry kernels[] = {
      CUDA_EMULATOR_KERNEL(block_sum),
      CUDA_EMULATOR_KERNEL(coordinates),
      CUDA_EMULATOR_KERNEL(barrier_in_both_branches),
      CUDA_EMULATOR_KERNEL(barrier_against_shuffle),
      CUDA_EMULATOR_KERNEL(shuffle_after_return),
      CUDA_EMULATOR_KERNEL(read_shared_before_write),
      CUDA_EMULATOR_KERNEL(write_past_shared),
      CUDA_EMULATOR_KERNEL(exit_early_then_barrier),
      CUDA_EMULATOR_KERNEL(read_neighbour_without_barrier),
      CUDA_EMULATOR_KERNEL(reuse_scratch_without_barrier),
      CUDA_EMULATOR_KERNEL(every_block_writes_one_word),
      CUDA_EMULATOR_KERNEL(count_with_atomics),
      CUDA_EMULATOR_KERNEL(read_static_shared),
      CUDA_EMULATOR_KERNEL(load_float4_at),
  };
  return kernels;
}

}  // namespace cuda_emulator
