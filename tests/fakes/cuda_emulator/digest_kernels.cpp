// The agent's reduction kernels (agent/cupti/digest_reduce.cu, the same
// source) built as host code for the emulator, and their table: with this
// library in FAKE_CUDA_KERNELS, checksum mode's device path runs on the
// fake driver. Built with -ffp-contract=off, as the digest's tree requires.
#include "agent/cupti/digest_reduce.cu"

#include "kernel_table.h"

namespace cuda_emulator {

std::span<const KernelEntry> kernel_table() {
  static const KernelEntry kernels[] = {
      CUDA_EMULATOR_KERNEL(brickprof_digest_chunks),
      CUDA_EMULATOR_KERNEL(brickprof_digest_combine),
  };
  return kernels;
}

}  // namespace cuda_emulator
