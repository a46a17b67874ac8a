// bricklayer's CUDA kernels, one per graph op; compiled to PTX and loaded with cuModuleLoadData.
//
// Activations are f32, weights f32 or Q4_K (same 144-byte blocks as the CPU
// side). Per-step values (the sequence position) are read from device memory
// so a captured CUDA graph replays unchanged for every token.
#include <cuda_fp16.h>

#include <cstdint>

// Dynamic shared memory, sized at launch. A macro so these kernels also
// build as host code for the tests' CPU emulator (tests/cuda_emulator).
#ifndef BL_DYNAMIC_SHARED
#define BL_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif

namespace {

constexpr int kWarp = 32;

struct BlockQ4K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[128];
};
static_assert(sizeof(BlockQ4K) == 144, "Q4_K block");

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Sum over the block; every thread gets the result. `scratch` holds 32 floats.
__device__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarp - 1) / kWarp;
  v = lane < warps ? scratch[lane] : 0.0f;
  return warp_sum(v);
}

__device__ float block_max(float v, float* scratch) {
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + kWarp - 1) / kWarp;
  v = lane < warps ? scratch[lane] : -INFINITY;
  return warp_max(v);
}

__device__ __forceinline__ float half_to_float(uint16_t h) {
  return __half2float(__ushort_as_half(h));
}

// 6-bit scale and min of sub-block j from the 12 packed bytes.
__device__ __forceinline__ void scale_min(const uint8_t* s, int j, float* sc, float* mn) {
  if (j < 4) {
    *sc = static_cast<float>(s[j] & 63);
    *mn = static_cast<float>(s[j + 4] & 63);
  } else {
    *sc = static_cast<float>((s[j + 4] & 15) | ((s[j - 4] >> 6) << 4));
    *mn = static_cast<float>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
  }
}

// 0x4B000000 is 2^23 as a float; OR-ing a small integer into its mantissa and
// subtracting 2^23 converts without the slower I2F path.
__device__ __forceinline__ float nib(uint32_t v) {
  return __uint_as_float(0x4B000000u | v) - 8388608.0f;
}

}  // namespace

// x[j] sits at xs[padded(j)]: one pad float after every 32. Unpadded, the
// lanes of a warp read x at offsets that differ by multiples of 32 floats
// (16 * part + 256 * block), all in one or two banks: up to 16-way shared
// memory conflicts. Padded, the ~3.5 blocks a warp covers fall on distinct
// banks. The backend sizes the dynamic shared memory with gemv_q4k_smem_bytes.
__device__ __forceinline__ int padded(int j) { return j + j / 32; }

// y[t*n + r] = W[r,:] . x[t,:], Q4_K weights. One warp per row, several rows
// per block; the warp reads its row as consecutive 16-byte words (a block is
// nine of them: one header word, eight words of quants), so each load
// instruction of the warp covers 512 contiguous bytes. x for one token sits
// in shared memory (padded, k + k/32 floats); gridDim.y walks the tokens.
extern "C" __global__ void bl_gemv_q4k(const BlockQ4K* __restrict__ w,
                                       const float* __restrict__ x, float* __restrict__ y,
                                       int n, int k, int rows_per_warp) {
  BL_DYNAMIC_SHARED(float, xs);
  const int t = blockIdx.y;
  const float4* x4 = reinterpret_cast<const float4*>(x + static_cast<size_t>(t) * k);
  for (int i = threadIdx.x; i < k / 4; i += blockDim.x) {
    const float4 v = x4[i];
    float* dst = xs + padded(4 * i);  // four floats never straddle a pad
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
  }
  __syncthreads();

  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int warps = blockDim.x / kWarp;
  const int nb = k / 256, words = nb * 9;
  const int row0 = (blockIdx.x * warps + warp) * rows_per_warp;
  for (int rr = 0; rr < rows_per_warp; ++rr) {
    const int r = row0 + rr;
    if (r >= n) break;
    const BlockQ4K* row = w + static_cast<size_t>(r) * nb;
    const uint4* wq = reinterpret_cast<const uint4*>(row);
    float acc = 0.0f;
    for (int i = lane; i < words; i += kWarp) {
      const int b = i / 9, part = i % 9;
      if (part == 0) continue;  // the header word; read below through L1
      const uint4 q = __ldg(wq + i);
      const BlockQ4K& blk = row[b];
      const int o = 16 * (part - 1), c = o / 32, l0 = o % 32;
      float sc0, mn0, sc1, mn1;
      scale_min(blk.scales, 2 * c, &sc0, &mn0);
      scale_min(blk.scales, 2 * c + 1, &sc1, &mn1);
      const float* xl = xs + padded(b * 256 + 64 * c + l0);  // low nibbles: sub-block 2c
      const float* xh = xl + 33;  // high nibbles, sub-block 2c+1: 32 on, one pad further
      float dl = 0, dh = 0, sl = 0, sh = 0;
      const uint32_t words4[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int wi = 0; wi < 4; ++wi) {
        const uint32_t v = words4[wi];
#pragma unroll
        for (int bi = 0; bi < 4; ++bi) {
          const int e = wi * 4 + bi;
          const float a = xl[e], h = xh[e];
          dl = fmaf(nib((v >> (8 * bi)) & 15u), a, dl);
          dh = fmaf(nib((v >> (8 * bi + 4)) & 15u), h, dh);
          sl += a;
          sh += h;
        }
      }
      const float d = half_to_float(blk.d), dmin = half_to_float(blk.dmin);
      acc += d * (sc0 * dl + sc1 * dh) - dmin * (mn0 * sl + mn1 * sh);
    }
    acc = warp_sum(acc);
    if (lane == 0) y[static_cast<size_t>(t) * n + r] = acc;
  }
}

// Same for f32 weights: a warp per row, float4 loads.
extern "C" __global__ void bl_gemv_f32(const float* __restrict__ w, const float* __restrict__ x,
                                       float* __restrict__ y, int n, int k, int rows_per_warp) {
  BL_DYNAMIC_SHARED(float, xs);
  const int t = blockIdx.y;
  for (int i = threadIdx.x; i < k; i += blockDim.x) xs[i] = x[static_cast<size_t>(t) * k + i];
  __syncthreads();
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  const int row0 = (blockIdx.x * (blockDim.x / kWarp) + warp) * rows_per_warp;
  for (int rr = 0; rr < rows_per_warp; ++rr) {
    const int r = row0 + rr;
    if (r >= n) break;
    const float* wr = w + static_cast<size_t>(r) * k;
    float acc = 0.0f;
    if (k % 4 == 0) {
      for (int i = lane; i < k / 4; i += kWarp) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(wr) + i);
        const float4 xv = reinterpret_cast<const float4*>(xs)[i];  // one conflict-free load
        acc += v.x * xv.x + v.y * xv.y + v.z * xv.z + v.w * xv.w;
      }
    } else {
      for (int i = lane; i < k; i += kWarp) acc += __ldg(wr + i) * xs[i];
    }
    acc = warp_sum(acc);
    if (lane == 0) y[static_cast<size_t>(t) * n + r] = acc;
  }
}

// One block per token row.
extern "C" __global__ void bl_rms_norm(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ y, int n, float eps) {
  __shared__ float scratch[32];
  const float* xr = x + static_cast<size_t>(blockIdx.x) * n;
  float* yr = y + static_cast<size_t>(blockIdx.x) * n;
  float ss = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) ss += xr[i] * xr[i];
  ss = block_sum(ss, scratch);
  const float scale = rsqrtf(ss / static_cast<float>(n) + eps);
  for (int i = threadIdx.x; i < n; i += blockDim.x) yr[i] = xr[i] * scale * w[i];
}

// One thread per rotated pair; row r has position pos[0] + r % seq_tokens.
extern "C" __global__ void bl_rope(float* x, int dim, int head_dim, int seq_tokens, int rows,
                                   const int* __restrict__ pos, float theta) {
  const int pairs = dim / 2;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= rows * pairs) return;
  const int r = idx / pairs, p = idx % pairs;
  const int i = p % (head_dim / 2);
  const float position = static_cast<float>(pos[0] + r % seq_tokens);
  const float angle = position * powf(theta, -2.0f * static_cast<float>(i) / static_cast<float>(head_dim));
  float s, c;
  sincosf(angle, &s, &c);
  float* v = x + static_cast<size_t>(r) * dim + 2 * p;
  const float x0 = v[0], x1 = v[1];
  v[0] = x0 * c - x1 * s;
  v[1] = x0 * s + x1 * c;
}

// KV-cache write: row r goes to cache row (r / T) * context + pos + r % T.
extern "C" __global__ void bl_kv_write(const float* __restrict__ src, float* __restrict__ cache,
                                       int kv_dim, int seq_tokens, int context, int rows,
                                       const int* __restrict__ pos) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= rows * kv_dim) return;
  const int r = idx / kv_dim, e = idx % kv_dim;
  const size_t dst = static_cast<size_t>(r / seq_tokens) * context + pos[0] + r % seq_tokens;
  cache[dst * kv_dim + e] = src[idx];
}

// Causal attention for one (head, row) per block, grouped-query: head h uses
// KV head h / (heads / kv_heads). Scores live in shared memory (context
// floats); warps split the keys, threads split the output dimensions.
extern "C" __global__ void bl_attention(const float* __restrict__ q, const float* __restrict__ kc,
                                        const float* __restrict__ vc, float* __restrict__ out,
                                        int heads, int kv_heads, int head_dim, int seq_tokens,
                                        int context, const int* __restrict__ pos, float scale) {
  BL_DYNAMIC_SHARED(float, score);
  __shared__ float scratch[32];
  const int h = blockIdx.x, r = blockIdx.y;
  const int kv_dim = kv_heads * head_dim, hidden = heads * head_dim;
  const int len = pos[0] + r % seq_tokens + 1;
  const size_t row0 = static_cast<size_t>(r / seq_tokens) * context;
  const int kvh = h / (heads / kv_heads);
  const float* qh = q + static_cast<size_t>(r) * hidden + h * head_dim;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, warps = blockDim.x / kWarp;

  for (int j = warp; j < len; j += warps) {
    const float* kj = kc + (row0 + j) * kv_dim + kvh * head_dim;
    float s = 0;
    for (int i = lane; i < head_dim; i += kWarp) s += qh[i] * kj[i];
    s = warp_sum(s);
    if (lane == 0) score[j] = s * scale;
  }
  __syncthreads();
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < len; j += blockDim.x) mx = fmaxf(mx, score[j]);
  mx = block_max(mx, scratch);
  float total = 0;
  for (int j = threadIdx.x; j < len; j += blockDim.x) {
    const float e = __expf(score[j] - mx);
    score[j] = e;
    total += e;
  }
  total = block_sum(total, scratch);  // its barriers also publish score[]
  const float inv = 1.0f / total;
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float acc = 0;
    for (int j = 0; j < len; ++j) acc += score[j] * vc[(row0 + j) * kv_dim + kvh * head_dim + d];
    out[static_cast<size_t>(r) * hidden + h * head_dim + d] = acc * inv;
  }
}

// y may be a (the residual stream is updated in place): no __restrict__.
extern "C" __global__ void bl_add(const float* a, const float* b, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a[i] + b[i];
}

extern "C" __global__ void bl_mul(const float* __restrict__ a, const float* __restrict__ b,
                                  float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a[i] * b[i];
}

extern "C" __global__ void bl_silu(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = x[i] / (1.0f + __expf(-x[i]));
}

// Embedding lookup, one block per token row.
extern "C" __global__ void bl_get_rows_q4k(const BlockQ4K* __restrict__ table,
                                           const int* __restrict__ tokens, float* __restrict__ out,
                                           int cols) {
  const int r = blockIdx.x;
  const BlockQ4K* row = table + static_cast<size_t>(tokens[r]) * (cols / 256);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    const BlockQ4K& b = row[i / 256];
    const int w = i % 256, c = w / 64, hi = (w / 32) % 2, l = w % 32;
    float sc, mn;
    scale_min(b.scales, 2 * c + hi, &sc, &mn);
    const int q = hi ? b.qs[c * 32 + l] >> 4 : b.qs[c * 32 + l] & 15;
    out[static_cast<size_t>(r) * cols + i] =
        half_to_float(b.d) * sc * static_cast<float>(q) - half_to_float(b.dmin) * mn;
  }
}

extern "C" __global__ void bl_get_rows_f32(const float* __restrict__ table,
                                           const int* __restrict__ tokens, float* __restrict__ out,
                                           int cols) {
  const int r = blockIdx.x;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[static_cast<size_t>(r) * cols + i] = table[static_cast<size_t>(tokens[r]) * cols + i];
}

// Read-bandwidth probe: every thread streams float4s; one atomic per block.
extern "C" __global__ void bl_read_sum(const float4* __restrict__ x, size_t n4, float* out) {
  __shared__ float scratch[32];
  float s = 0;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float4 v = __ldg(x + i);
    s += (v.x + v.y) + (v.z + v.w);
  }
  s = block_sum(s, scratch);
  if (threadIdx.x == 0) atomicAdd(out, s);
}
