// Small kernels that exercise the emulator: each is valid CUDA, built here
// as host code with cuda_prelude.h.
#include <cstdint>

namespace {
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
}  // namespace

// out[blockIdx.x] = sum of x over the block's slice: shuffles, a static
// shared array and dynamic shared memory staging.
extern "C" __global__ void block_sum(const float* x, float* out, int n) {
  BL_DYNAMIC_SHARED(float, staged);
  __shared__ float partial[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  staged[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  // Read a neighbour's value: only right after the barrier.
  float v = staged[(threadIdx.x + 1) % blockDim.x];
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) total += partial[w];
    out[blockIdx.x] = total;
  }
}

// Every thread writes where it is, in a 3-D grid of 3-D blocks.
extern "C" __global__ void coordinates(uint32_t* out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  out[block * per_block + thread] = (blockIdx.z << 24) | (blockIdx.y << 16) | (blockIdx.x << 8) |
                                    (threadIdx.z << 6) | (threadIdx.y << 4) | threadIdx.x;
}

// Bugs the emulator must catch.
extern "C" __global__ void barrier_in_both_branches(float* out) {
  if (threadIdx.x < 16) {
    __syncthreads();
    out[threadIdx.x] = 1;
  } else {
    __syncthreads();
    out[threadIdx.x] = 2;
  }
}

extern "C" __global__ void barrier_against_shuffle(float* out) {
  float v = 1;
  if (threadIdx.x == 0) {
    __syncthreads();
  } else {
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  }
  out[threadIdx.x] = v;
}

extern "C" __global__ void shuffle_after_return(float* out) {
  if (threadIdx.x == 3) return;
  out[threadIdx.x] = warp_sum(1.0f);
}

extern "C" __global__ void read_shared_before_write(float* out) {
  BL_DYNAMIC_SHARED(float, s);
  out[threadIdx.x] = s[threadIdx.x];
}

extern "C" __global__ void write_past_shared(int count) {
  BL_DYNAMIC_SHARED(float, s);
  for (int i = threadIdx.x; i < count; i += blockDim.x) s[i] = 0;
}

extern "C" __global__ void exit_early_then_barrier(float* out) {
  if (threadIdx.x >= 40) return;  // returned threads no longer hold the barrier
  __syncthreads();
  out[threadIdx.x] = 3;
}

// Races the emulator must report, whatever order it runs the threads in.
extern "C" __global__ void read_neighbour_without_barrier(float* out) {
  BL_DYNAMIC_SHARED(float, s);
  s[threadIdx.x] = static_cast<float>(threadIdx.x);
  out[threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];  // needs a __syncthreads before
}

// A block reduction run twice over one scratch array: the second round's
// writes need a barrier after the first round's reads.
extern "C" __global__ void reuse_scratch_without_barrier(float* out, int barrier_between) {
  __shared__ float scratch[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  float total = 0;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && barrier_between) __syncthreads();
    if (lane == 0) scratch[warp] = static_cast<float>(round + 1);
    __syncthreads();
    for (unsigned w = 0; w < warps; ++w) total += scratch[w];
  }
  out[threadIdx.x] = total;
}

extern "C" __global__ void every_block_writes_one_word(float* out) {
  if (threadIdx.x == 0) out[0] = static_cast<float>(blockIdx.x);
}

extern "C" __global__ void count_with_atomics(float* out) { atomicAdd(out, 1.0f); }

extern "C" __global__ void read_static_shared(float* out) {
  __shared__ float s[32];
  if (blockIdx.x == 0) s[threadIdx.x] = 1;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}

// A float4 load needs 16-byte alignment on a GPU.
extern "C" __global__ void load_float4_at(const float* x, int offset, float* out) {
  const float4 v = *reinterpret_cast<const float4*>(x + offset);
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}
