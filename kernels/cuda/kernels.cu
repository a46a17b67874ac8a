// bricklayer's CUDA kernels, one per graph op; compiled to PTX and loaded with cuModuleLoadData.
//
// Activations are f32, weights f32 or Q4_K (same 144-byte blocks as the CPU
// side). Per-step values (the sequence position) are read from device memory
// so a captured CUDA graph replays unchanged for every token.
#include <cuda_fp16.h>

#include <cstdint>

#include "block_q8k_gpu.h"

// Dynamic shared memory, sized at launch. A macro so these kernels also
// build as host code for the tests' CPU emulator (tests/fakes/cuda_emulator).
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

}  // namespace

// Activations to Q8_K, bit for bit the CPU's quantize_row_q8k: one warp per
// 256 values. Lane L writes nibble-order positions 8L..8L+7, which hold 8
// consecutive values of one sub-block; its 4-lane group sums that sub-block.
extern "C" __global__ void bl_quantize_q8k(const float* __restrict__ x,
                                           BlockQ8KGpu* __restrict__ y, int blocks) {
  const int lane = threadIdx.x % kWarp;
  const int b = blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  if (b >= blocks) return;  // whole warps leave together: no shuffle is cut short
  const int p = 8 * lane, half = p / 128, o = p % 64, high = (p / 64) % 2;
  const int first = 64 * (2 * half + o / 32) + 32 * high + o % 32;  // its weight index
  const float4* src = reinterpret_cast<const float4*>(x + static_cast<size_t>(b) * 256 + first);
  const float4 v0 = src[0], v1 = src[1];
  const float v[8] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
  float amax = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) amax = fmaxf(amax, fabsf(v[i]));
  amax = warp_max(amax);
  const float inv = amax > 0 ? 127.0f / amax : 0.0f;
  uint32_t packed[2] = {0, 0};
  int sum = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float s = fminf(fmaxf(v[i] * inv, -127.0f), 127.0f);
    const int q = static_cast<int>(s + (s >= 0 ? 0.5f : -0.5f));  // half away, as the CPU
    sum += q;
    packed[i / 4] |= (static_cast<uint32_t>(q) & 0xFFu) << (8 * (i % 4));
  }
  BlockQ8KGpu& out = y[b];
  reinterpret_cast<uint2*>(out.qs)[lane] = make_uint2(packed[0], packed[1]);
  sum += __shfl_xor_sync(0xffffffffu, sum, 1);
  sum += __shfl_xor_sync(0xffffffffu, sum, 2);
  // Sub-blocks 2m and 2m+1 are the low and high nibbles of one run of
  // bytes, summed 8 lanes apart: one lane stores the pair as a word.
  const int partner = __shfl_xor_sync(0xffffffffu, sum, 8);
  if (lane % 4 == 0 && high == 0)
    reinterpret_cast<uint32_t*>(out.bsums)[first / 64] =
        (static_cast<uint32_t>(sum) & 0xFFFFu) | (static_cast<uint32_t>(partner) << 16);
  if (lane == 0) out.d = amax / 127.0f;
}

// y[t*n + r] = W[r,:] . x[t,:], Q4_K weights, x in Q8_K (bl_quantize_q8k).
// One warp per row. Eight lanes share a Q4_K block, lane part p taking qs
// bytes 16p..16p+15 (one 16-byte load; a warp's four blocks are 576
// contiguous bytes): their low nibbles belong to sub-block 2c (c = p/2), the
// high ones to 2c+1, and the matching activations are two 16-byte runs of
// the Q8_K block. Integer dot products (dp4a), scaled once per 16 bytes;
// each sub-block's min term is added by one of its two lanes.
extern "C" __global__ void __launch_bounds__(256)
    bl_gemv_q4k(const BlockQ4K* __restrict__ w, const BlockQ8KGpu* __restrict__ x,
                float* __restrict__ y, int n, int k) {
  const int lane = threadIdx.x % kWarp;
  const int r = blockIdx.x * (blockDim.x / kWarp) + threadIdx.x / kWarp;
  if (r >= n) return;
  const int t = blockIdx.y, nb = k / 256;
  const BlockQ4K* row = w + static_cast<size_t>(r) * nb;
  const BlockQ8KGpu* xr = x + static_cast<size_t>(t) * nb;
  const int part = lane % 8, c = part / 2;
  const int xoff = 128 * (part / 4) + 16 * (part % 4);  // low nibbles' values; high: +64
  const bool adds_min = part % 2 == 0;
  // Where sub-blocks 2c and 2c+1 keep their 6-bit scales and mins in the
  // three words of `scales`: c < 2 in words 0 (scales) and 1 (mins); else
  // four bits in word 2 and the top two in words 0 and 1.
  const bool packed_high = c >= 2;
  const int shift = 16 * (c % 2);
  float acc = 0;
#pragma unroll 2
  for (int b = lane / 8; b < nb; b += 4) {
    const uint4* blk = reinterpret_cast<const uint4*>(row + b);
    const uint4 q = __ldg(blk + 1 + part);
    const uint4 head = __ldg(blk);  // d, dmin, scales: one load serves eight lanes
    const BlockQ8KGpu& xb = xr[b];
    const int4 xl = __ldg(reinterpret_cast<const int4*>(xb.qs + xoff));
    const int4 xh = __ldg(reinterpret_cast<const int4*>(xb.qs + xoff + 64));
    const uint32_t w0 = head.y >> shift, w1 = head.z >> shift, w2 = head.w >> shift;
    const uint32_t sc = packed_high ? (w2 & 0x0F0Fu) | ((w0 & 0xC0C0u) >> 2) : w0 & 0x3F3Fu;
    const uint32_t mn = packed_high ? ((w2 >> 4) & 0x0F0Fu) | ((w1 & 0xC0C0u) >> 2) : w1 & 0x3F3Fu;
    int lo = 0, hi = 0;
    lo = __dp4a(static_cast<int>(q.x & 0x0F0F0F0Fu), xl.x, lo);
    lo = __dp4a(static_cast<int>(q.y & 0x0F0F0F0Fu), xl.y, lo);
    lo = __dp4a(static_cast<int>(q.z & 0x0F0F0F0Fu), xl.z, lo);
    lo = __dp4a(static_cast<int>(q.w & 0x0F0F0F0Fu), xl.w, lo);
    hi = __dp4a(static_cast<int>((q.x >> 4) & 0x0F0F0F0Fu), xh.x, hi);
    hi = __dp4a(static_cast<int>((q.y >> 4) & 0x0F0F0F0Fu), xh.y, hi);
    hi = __dp4a(static_cast<int>((q.z >> 4) & 0x0F0F0F0Fu), xh.z, hi);
    hi = __dp4a(static_cast<int>((q.w >> 4) & 0x0F0F0F0Fu), xh.w, hi);
    const int scaled = static_cast<int>(sc & 0xFFu) * lo + static_cast<int>(sc >> 8) * hi;
    int mins = 0;
    if (adds_min) {
      const uint32_t bs = *reinterpret_cast<const uint32_t*>(xb.bsums + 2 * c);
      mins = static_cast<int>(mn & 0xFFu) * static_cast<int16_t>(bs & 0xFFFFu) +
             static_cast<int>(mn >> 8) * static_cast<int16_t>(bs >> 16);
    }
    const float d = half_to_float(static_cast<uint16_t>(head.x & 0xFFFFu));
    const float dmin = half_to_float(static_cast<uint16_t>(head.x >> 16));
    acc += xb.d * (d * static_cast<float>(scaled) - dmin * static_cast<float>(mins));
  }
  acc = warp_sum(acc);
  if (lane == 0) y[static_cast<size_t>(t) * n + r] = acc;
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
