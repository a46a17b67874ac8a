// Checksum mode's reduction kernels (agent/README.md, "Checksum mode"):
// the digest's tree of trace/model/checksum_tree.h on the GPU, bit for bit
// the host's digest_of. The agent runs them on the digested kernel's own
// stream (device_digest.h): one chunk launch, then one combine launch per
// level until one record is left.
//
// Built to PTX at build time when nvcc is present and embedded in the
// agent (agent/cupti/meson.build), checked with ptxas for sm_90 in CI; also
// built as host code for the CPU emulator (tests/fakes/cuda_emulator,
// digest_kernels.cpp), so the fake driver runs the same code.
//
// One thread per record: a chunk is 4096 bytes, so a thread's loads are
// contiguous and the launch is small (a 256 MiB buffer is 65536 threads).
#include "trace/model/checksum_tree.h"

namespace tree = brickprof::digest_tree;

// Thread c: the record of chunk c of the buffer of `bytes` bytes at `data`,
// read as elements of `type` (a brickprof::ElementType).
extern "C" __global__ void __launch_bounds__(128)
brickprof_digest_chunks(const unsigned char* __restrict__ data, uint64_t bytes, unsigned type,
                        tree::Record* __restrict__ records) {
  const uint64_t c = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= tree::chunk_count(bytes)) return;
  const uint64_t at = c * tree::kChunkBytes;
  const uint64_t n = bytes - at < tree::kChunkBytes ? bytes - at : tree::kChunkBytes;
  const auto element_type = static_cast<brickprof::ElementType>(type);
  tree::chunk_record(element_type, data + at, n, at / tree::size_of(element_type), &records[c]);
}

// Thread g: the fold of records [64 g, 64 g + 64) of `count` into out[g].
extern "C" __global__ void __launch_bounds__(128)
brickprof_digest_combine(const tree::Record* __restrict__ in, uint64_t count,
                         tree::Record* __restrict__ out) {
  const uint64_t g = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= tree::group_count(count)) return;
  tree::Record group;
  tree::start(&group);
  const uint64_t last = (g + 1) * tree::kGroup < count ? (g + 1) * tree::kGroup : count;
  for (uint64_t m = g * tree::kGroup; m < last; ++m) tree::fold(&group, in[m]);
  out[g] = group;
}
