// The part of CUDA that bricklayer's kernels use, for compiling them as host
// C++ against the emulator (force-included with -include). Built-ins map to
// the emulator; device math maps to libm (__expf is exact here, an
// approximation on a GPU: the tests' tolerances cover both).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "emulator.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
// Blocks run one at a time on one OS thread, so a static is per block; the
// section tells the emulator where they are (poisoned per block, and their
// races are per block).
#define __shared__ static __attribute__((section("cuda_emulator_shared")))
#define BL_DYNAMIC_SHARED(type, name) \
  type* name = static_cast<type*>(::cuda_emulator::dynamic_shared())

#define threadIdx (::cuda_emulator::thread_idx())
#define blockIdx (::cuda_emulator::block_idx())
#define blockDim (::cuda_emulator::block_dim())
#define gridDim (::cuda_emulator::grid_dim())

struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
struct __half {
  uint16_t bits;
};

// The emulator tells barriers apart by source line.
#define CUDA_EMULATOR_STRING(x) #x
#define CUDA_EMULATOR_LINE(line) CUDA_EMULATOR_STRING(line)
#define __syncthreads() ::cuda_emulator::sync_threads(__FILE__ ":" CUDA_EMULATOR_LINE(__LINE__))

template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32) {
  static_assert(sizeof(T) == 4, "32-bit shuffles only");
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits = ::cuda_emulator::shuffle_xor(bits, mask, lane_mask, width);
  std::memcpy(&v, &bits, 4);
  return v;
}

// A macro, so a misaligned load is reported at the kernel's line.
#define __ldg(p) (*(p))

inline float __expf(float x) { return std::exp(x); }
// Four signed byte products summed into c, as the dp4a instruction.
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i)
    c += static_cast<int8_t>(static_cast<uint32_t>(a) >> (8 * i)) *
         static_cast<int8_t>(static_cast<uint32_t>(b) >> (8 * i));
  return c;
}
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __uint_as_float(unsigned v) {
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline __half __ushort_as_half(unsigned short v) { return __half{v}; }
inline float __half2float(__half h) {
  const uint32_t sign = (h.bits & 0x8000u) << 16, exp = (h.bits >> 10) & 31u, man = h.bits & 1023u;
  if (exp == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(man), -24);
  const uint32_t bits = exp == 31 ? sign | 0x7F800000u | (man << 13)
                                  : sign | ((exp + 112u) << 23) | (man << 13);
  return __uint_as_float(bits);
}
// One OS thread runs every fiber: a plain add is atomic here. Not
// instrumented: atomics do not race.
__attribute__((noinline, no_sanitize_thread)) inline float atomicAdd(float* p, float v) {
  const float old = *p;
  *p = old + v;
  return old;
}
