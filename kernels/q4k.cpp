// Q4_K / Q8_K quantization and the scalar reference dot products.
#include "kernels/q4k.h"

#include <algorithm>
#include <cmath>

#include "kernels/fp16.h"

namespace bricklayer {

void q4k_unpack_scales(const uint8_t packed[12], uint8_t scales[8], uint8_t mins[8]) {
  for (int j = 0; j < 4; ++j) {
    scales[j] = packed[j] & 63;
    mins[j] = packed[j + 4] & 63;
  }
  for (int j = 4; j < 8; ++j) {
    scales[j] = static_cast<uint8_t>((packed[j + 4] & 15) | ((packed[j - 4] >> 6) << 4));
    mins[j] = static_cast<uint8_t>((packed[j + 4] >> 4) | ((packed[j] >> 6) << 4));
  }
}

void q4k_pack_scales(const uint8_t scales[8], const uint8_t mins[8], uint8_t packed[12]) {
  for (int j = 0; j < 4; ++j) {
    packed[j] = static_cast<uint8_t>(scales[j] | ((scales[j + 4] >> 4) << 6));
    packed[j + 4] = static_cast<uint8_t>(mins[j] | ((mins[j + 4] >> 4) << 6));
    packed[j + 8] = static_cast<uint8_t>((scales[j + 4] & 15) | ((mins[j + 4] & 15) << 4));
  }
}

namespace {

// fp16 of v, rounded up if needed so that 63 * result >= v: then every
// sub-block scale fits in 6 bits without clipping.
uint16_t half_at_least(float v) {
  uint16_t h = float_to_half(v);
  if (half_to_float(h) < v) ++h;  // v > 0 here, so +1 is the next larger half
  return h;
}

void quantize_block(const float* x, BlockQ4K* b) {
  float step[8], offset[8];
  float max_step = 0, max_offset = 0;
  for (int j = 0; j < 8; ++j) {
    const float* s = x + j * kSubBlock;
    float lo = s[0], hi = s[0];
    for (int i = 1; i < kSubBlock; ++i) {
      lo = std::min(lo, s[i]);
      hi = std::max(hi, s[i]);
    }
    lo = std::min(lo, 0.0f);  // the min term only subtracts
    step[j] = (hi - lo) / 15.0f;
    offset[j] = -lo;
    max_step = std::max(max_step, step[j]);
    max_offset = std::max(max_offset, offset[j]);
  }
  b->d = max_step > 0 ? half_at_least(max_step / 63.0f) : 0;
  b->dmin = max_offset > 0 ? half_at_least(max_offset / 63.0f) : 0;
  const float d = half_to_float(b->d), dmin = half_to_float(b->dmin);
  uint8_t sc[8], mn[8];
  for (int j = 0; j < 8; ++j) {
    // Scales round up (a step never shorter than needed, so the range is
    // covered); mins round to nearest (off by at most dmin/2).
    sc[j] = d > 0 ? static_cast<uint8_t>(std::min(63.0f, std::ceil(step[j] / d))) : 0;
    mn[j] = dmin > 0 ? static_cast<uint8_t>(std::min(63.0f, std::nearbyint(offset[j] / dmin))) : 0;
  }
  q4k_pack_scales(sc, mn, b->scales);
  uint8_t q[kQK];
  for (int j = 0; j < 8; ++j) {
    const float s = d * sc[j], m = dmin * mn[j];
    const float inv = s > 0 ? 1.0f / s : 0.0f;
    for (int i = 0; i < kSubBlock; ++i) {
      // Clamp, then round half up by truncation: no libm call in the loop.
      const float v = std::clamp((x[j * kSubBlock + i] + m) * inv, 0.0f, 15.0f);
      q[j * kSubBlock + i] = static_cast<uint8_t>(v + 0.5f);
    }
  }
  for (int c = 0; c < 4; ++c) {
    for (int l = 0; l < 32; ++l) {
      b->qs[c * 32 + l] = static_cast<uint8_t>(q[c * 64 + l] | (q[c * 64 + 32 + l] << 4));
    }
  }
}

}  // namespace

// Error bound: with v = x + dmin*min the value quantized, |min*dmin - offset|
// <= dmin/2, so v lies in [-dmin/2, range + dmin/2] and step*15 >= range.
// Inside [0, 15*step] rounding errs by <= step/2; outside, clamping errs by
// <= dmin/2.
void quantize_row_q4k(const float* x, BlockQ4K* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b) quantize_block(x + b * kQK, y + b);
}

void dequantize_row_q4k(const BlockQ4K* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b) {
    const BlockQ4K& blk = x[b];
    const float d = half_to_float(blk.d), dmin = half_to_float(blk.dmin);
    uint8_t sc[8], mn[8];
    q4k_unpack_scales(blk.scales, sc, mn);
    float* out = y + b * kQK;
    for (int c = 0; c < 4; ++c) {
      const float s0 = d * sc[2 * c], m0 = dmin * mn[2 * c];
      const float s1 = d * sc[2 * c + 1], m1 = dmin * mn[2 * c + 1];
      for (int l = 0; l < 32; ++l) {
        out[c * 64 + l] = s0 * static_cast<float>(blk.qs[c * 32 + l] & 15) - m0;
        out[c * 64 + 32 + l] = s1 * static_cast<float>(blk.qs[c * 32 + l] >> 4) - m1;
      }
    }
  }
}

void quantize_row_q8k(const float* x, BlockQ8K* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b) {
    const float* s = x + b * kQK;
    float amax = 0;
    for (int i = 0; i < kQK; ++i) amax = std::max(amax, std::fabs(s[i]));
    BlockQ8K& out = y[b];
    out.d = amax / 127.0f;
    const float inv = amax > 0 ? 127.0f / amax : 0.0f;
    int sums[8] = {};
    for (int p = 0; p < kQK; ++p) {
      const int w = q8k_weight_index(p);
      const float v = std::clamp(s[w] * inv, -127.0f, 127.0f);
      out.qs[p] = static_cast<int8_t>(v + (v >= 0 ? 0.5f : -0.5f));  // round half away
      sums[w / kSubBlock] += out.qs[p];
    }
    for (int j = 0; j < 8; ++j) out.bsums[j] = static_cast<int16_t>(sums[j]);
  }
}

void dequantize_row_q8k(const BlockQ8K* x, float* y, int64_t n) {
  for (int64_t b = 0; b < n / kQK; ++b) {
    for (int p = 0; p < kQK; ++p) y[b * kQK + q8k_weight_index(p)] = x[b].d * x[b].qs[p];
  }
}

float dot_q4k_f32_ref(const BlockQ4K* w, const float* x, int64_t nb) {
  float tmp[kQK];
  double sum = 0;
  for (int64_t b = 0; b < nb; ++b) {
    dequantize_row_q4k(w + b, tmp, kQK);
    float part = 0;
    for (int i = 0; i < kQK; ++i) part += tmp[i] * x[b * kQK + i];
    sum += part;
  }
  return static_cast<float>(sum);
}

float dot_q4k_q8k_ref(const BlockQ4K* w, const BlockQ8K* x, int64_t nb) {
  float sum = 0;
  for (int64_t b = 0; b < nb; ++b) {
    const BlockQ4K& blk = w[b];
    uint8_t sc[8], mn[8];
    q4k_unpack_scales(blk.scales, sc, mn);
    int sub[8] = {};
    for (int p = 0; p < kQK; ++p) {
      const int wi = q8k_weight_index(p);
      const int c = wi >> 6, hi = (wi >> 5) & 1, l = wi & 31;
      const int q4 = hi ? blk.qs[c * 32 + l] >> 4 : blk.qs[c * 32 + l] & 15;
      sub[wi / kSubBlock] += q4 * x[b].qs[p];
    }
    int scaled = 0, mins = 0;
    for (int j = 0; j < 8; ++j) {
      scaled += sc[j] * sub[j];
      mins += mn[j] * x[b].bsums[j];
    }
    sum += x[b].d * (half_to_float(blk.d) * static_cast<float>(scaled) -
                     half_to_float(blk.dmin) * static_cast<float>(mins));
  }
  return sum;
}

}  // namespace bricklayer
