// A naive f32 forward pass of the bricklayer model, written independently of the graph code.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/model.h"

namespace bricklayer::testing {

using Mat = std::vector<float>;  // row-major

inline Mat dense(const Matrix& m) {
  Mat out(static_cast<size_t>(m.rows * m.cols));
  for (int64_t r = 0; r < m.rows; ++r) m.row(r, out.data() + r * m.cols);
  return out;
}

// y (T x rows) = x (T x cols) W^T
inline Mat matmul(const Mat& x, const Matrix& w, int tokens) {
  const Mat wd = dense(w);
  Mat y(static_cast<size_t>(tokens * w.rows));
  for (int t = 0; t < tokens; ++t)
    for (int64_t r = 0; r < w.rows; ++r) {
      double s = 0;
      for (int64_t i = 0; i < w.cols; ++i) s += static_cast<double>(wd[static_cast<size_t>(r * w.cols + i)]) * x[static_cast<size_t>(t * w.cols + i)];
      y[static_cast<size_t>(t * w.rows + r)] = static_cast<float>(s);
    }
  return y;
}

inline Mat rmsnorm(const Mat& x, const std::vector<float>& w, int tokens, float eps) {
  const size_t n = w.size();
  Mat y(x.size());
  for (int t = 0; t < tokens; ++t) {
    double ss = 0;
    for (size_t i = 0; i < n; ++i) ss += static_cast<double>(x[t * n + i]) * x[t * n + i];
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    for (size_t i = 0; i < n; ++i) y[t * n + i] = static_cast<float>(x[t * n + i] * inv * w[i]);
  }
  return y;
}

inline void rope(Mat& x, int tokens, int dim, int head_dim, float theta) {
  for (int t = 0; t < tokens; ++t)
    for (int h = 0; h < dim / head_dim; ++h)
      for (int i = 0; i < head_dim / 2; ++i) {
        const double a = t * std::pow(static_cast<double>(theta), -2.0 * i / head_dim);
        float* p = &x[static_cast<size_t>(t * dim + h * head_dim + 2 * i)];
        const double x0 = p[0], x1 = p[1];
        p[0] = static_cast<float>(x0 * std::cos(a) - x1 * std::sin(a));
        p[1] = static_cast<float>(x0 * std::sin(a) + x1 * std::cos(a));
      }
}

// Logits (tokens x vocab) of one sequence of `ids`, every position.
inline Mat reference_forward(const Model& m, const std::vector<int32_t>& ids) {
  const Config& c = m.cfg;
  const int T = static_cast<int>(ids.size()), H = c.hidden, hd = c.head_dim(), kv = c.kv_dim();
  Mat x(static_cast<size_t>(T * H));
  for (int t = 0; t < T; ++t) m.tok_embd.row(ids[static_cast<size_t>(t)], x.data() + t * H);
  for (const LayerWeights& l : m.layers) {
    Mat xn = rmsnorm(x, l.attn_norm, T, c.rms_eps);
    Mat q = matmul(xn, l.wq, T), k = matmul(xn, l.wk, T), v = matmul(xn, l.wv, T);
    rope(q, T, H, hd, c.rope_theta);
    rope(k, T, kv, hd, c.rope_theta);
    Mat att(static_cast<size_t>(T * H), 0.0f);
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < c.heads; ++h) {
        const int g = h / (c.heads / c.kv_heads);
        std::vector<double> s(static_cast<size_t>(t + 1));
        double mx = -1e300, total = 0;
        for (int j = 0; j <= t; ++j) {
          double d = 0;
          for (int i = 0; i < hd; ++i) d += static_cast<double>(q[static_cast<size_t>(t * H + h * hd + i)]) * k[static_cast<size_t>(j * kv + g * hd + i)];
          s[static_cast<size_t>(j)] = d / std::sqrt(static_cast<double>(hd));
          mx = std::max(mx, s[static_cast<size_t>(j)]);
        }
        for (auto& e : s) total += (e = std::exp(e - mx));
        for (int j = 0; j <= t; ++j)
          for (int i = 0; i < hd; ++i)
            att[static_cast<size_t>(t * H + h * hd + i)] += static_cast<float>(s[static_cast<size_t>(j)] / total * v[static_cast<size_t>(j * kv + g * hd + i)]);
      }
    Mat o = matmul(att, l.wo, T);
    for (size_t i = 0; i < x.size(); ++i) x[i] += o[i];
    xn = rmsnorm(x, l.ffn_norm, T, c.rms_eps);
    Mat gt = matmul(xn, l.w_gate, T), up = matmul(xn, l.w_up, T);
    for (size_t i = 0; i < gt.size(); ++i) gt[i] = static_cast<float>(gt[i] / (1.0 + std::exp(-static_cast<double>(gt[i])))) * up[i];
    Mat d = matmul(gt, l.w_down, T);
    for (size_t i = 0; i < x.size(); ++i) x[i] += d[i];
  }
  return matmul(rmsnorm(x, m.out_norm, T, c.rms_eps), m.lm_head, T);
}

}  // namespace bricklayer::testing
