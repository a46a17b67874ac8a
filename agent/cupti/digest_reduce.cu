// The reduction kernels checksum mode's device path is to run on the
// kernel's own stream, with no host synchronisation (agent/README.md,
// "Checksum mode"): the digest of trace/model/checksum.h computed on the
// GPU for an f32 buffer. Built to PTX at build time when nvcc is present
// (agent/cupti/meson.build) and checked with ptxas for sm_90 in CI
// (tests/agent/cupti, digest_reduce_ptxas). Not launched by the agent yet:
// the host-copy path is what runs (kernel_checksums.h).
//
// The exact part, FNV-1a 64, is a chain over the bytes in order: one
// thread walks it (brickprof_digest_fnv1a), which is exact and slow (a few
// ns per byte); the approximate parts reduce in parallel, per block and
// then across blocks in block order, so a run's figures do not depend on
// scheduling — but their sums round differently from the host's
// in-order sums (equal to a few ulps of the sum, not bit for bit).
#include <stdint.h>

// The per-block partial sums, as doubles: what brickprof_digest_combine
// adds up in block order.
enum : int {
  kSum = 0, kL1, kSquares, kMin, kMax, kNan, kInf, kFinite, kProjection0,
  kPartials = kProjection0 + 16,
};

// splitmix64 of the element index: the projections' signs, as digest_of.
__device__ __forceinline__ uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// One block of 256 threads per slice; `partials` holds kPartials doubles
// per block.
extern "C" __global__ void __launch_bounds__(256)
brickprof_digest_partials_f32(const float* __restrict__ x, uint64_t n, double* __restrict__ partials) {
  __shared__ double s[kPartials][256];
  double v[kPartials];
  for (int k = 0; k < kPartials; ++k) v[k] = 0;
  v[kMin] = __longlong_as_double(0x7ff0000000000000ll);   // +inf
  v[kMax] = -__longlong_as_double(0x7ff0000000000000ll);  // -inf
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double e = x[i];
    if (isnan(e)) { v[kNan] += 1; continue; }
    if (isinf(e)) { v[kInf] += 1; continue; }
    v[kSum] += e;
    v[kL1] += fabs(e);
    v[kSquares] += e * e;
    v[kMin] = fmin(v[kMin], e);
    v[kMax] = fmax(v[kMax], e);
    v[kFinite] += 1;
    const uint64_t signs = mix(i);
    for (int k = 0; k < 16; ++k) v[kProjection0 + k] += (signs >> k & 1) ? e : -e;
  }
  for (int k = 0; k < kPartials; ++k) s[k][threadIdx.x] = v[k];
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      for (int k = 0; k < kPartials; ++k) {
        const double a = s[k][threadIdx.x], b = s[k][threadIdx.x + half];
        s[k][threadIdx.x] = k == kMin ? fmin(a, b) : k == kMax ? fmax(a, b) : a + b;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x < kPartials) partials[uint64_t(blockIdx.x) * kPartials + threadIdx.x] = s[threadIdx.x][0];
}

// One thread: the blocks' partials added up in block order into `out`
// (kPartials doubles).
extern "C" __global__ void brickprof_digest_combine(const double* __restrict__ partials,
                                                    unsigned blocks, double* __restrict__ out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  double v[kPartials];
  for (int k = 0; k < kPartials; ++k) v[k] = partials[k];
  for (unsigned b = 1; b < blocks; ++b)
    for (int k = 0; k < kPartials; ++k) {
      const double p = partials[uint64_t(b) * kPartials + k];
      v[k] = k == kMin ? fmin(v[k], p) : k == kMax ? fmax(v[k], p) : v[k] + p;
    }
  for (int k = 0; k < kPartials; ++k) out[k] = v[k];
}

// One thread: FNV-1a 64 of `n` bytes, in order (the digest's exact part).
extern "C" __global__ void brickprof_digest_fnv1a(const unsigned char* __restrict__ bytes, uint64_t n,
                                                  uint64_t* __restrict__ out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < n; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  *out = h;
}
