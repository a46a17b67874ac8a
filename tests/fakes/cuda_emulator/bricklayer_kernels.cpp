// bricklayer's CUDA kernels (kernels/cuda/kernels.cu, the same source) built as
// host code for the emulator, and their table. A kernel missing here fails
// its launch with "no emulated version", so a new kernel cannot slip by.
#include "kernels/cuda/kernels.cu"

#include "kernel_table.h"

namespace cuda_emulator {

std::span<const KernelEntry> kernel_table() {
  static const KernelEntry kernels[] = {
      CUDA_EMULATOR_KERNEL(bl_quantize_q8k), CUDA_EMULATOR_KERNEL(bl_gemv_q4k),
      CUDA_EMULATOR_KERNEL(bl_gemv_f32),
      CUDA_EMULATOR_KERNEL(bl_rms_norm),     CUDA_EMULATOR_KERNEL(bl_rope),
      CUDA_EMULATOR_KERNEL(bl_kv_write),     CUDA_EMULATOR_KERNEL(bl_attention),
      CUDA_EMULATOR_KERNEL(bl_add),          CUDA_EMULATOR_KERNEL(bl_mul),
      CUDA_EMULATOR_KERNEL(bl_silu),         CUDA_EMULATOR_KERNEL(bl_get_rows_q4k),
      CUDA_EMULATOR_KERNEL(bl_get_rows_f32), CUDA_EMULATOR_KERNEL(bl_read_sum),
  };
  return kernels;
}

}  // namespace cuda_emulator
