// The CPU dispatcher: runs each op with one kernel table (scalar, AVX2 or AVX-512).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu_kernels.h"
#include "kernels/dispatch.h"
#include "kernels/memory_pools.h"
#include "kernels/q8_cache.h"
#include "kernels/thread_pool.h"

namespace bricklayer {

// Rows per chunk a GEMV hands to the pool: eight chunks per thread. Each
// chunk starts with its first 8 KiB not yet prefetched (q4k_simd.h) and
// prefetches 8 KiB past its end into rows another thread may read, so
// chunks must be large; 16-row chunks (18 KB of a 2048-wide Q4_K matrix)
// cost bricklayer's decode ~20 %. Eight per thread still balance a thread
// that loses its core for a while on a shared machine (one chunk per
// thread did not).
int64_t gemv_rows_per_chunk(int64_t rows, int threads);

class CpuBackend final : public Dispatcher {
 public:
  // `pool` is shared with the caller (weights generation uses it too).
  CpuBackend(const CpuKernels& kernels, ThreadPool& pool);
  ~CpuBackend() override;

  std::string name() const override { return kernels_.name; }
  const CpuKernels& kernels() const { return kernels_; }
  void prepare(const Graph& g) override;
  void begin_step(const Graph& g, const Step& s) override;
  void end_step(const Graph&) override {}
  void read(int tensor, float* dst, int64_t count) override;
  void read_at(int tensor, int64_t offset, float* dst, int64_t count) override;
  void write_at(int tensor, int64_t offset, const float* src, int64_t count) override;

  void get_rows(const Graph& g, const Node& n) override;
  void mul_mat(const Graph& g, const Node& n) override;
  void rms_norm(const Graph& g, const Node& n) override;
  void add(const Graph& g, const Node& n) override;
  void rope(const Graph& g, const Node& n) override;
  void attention(const Graph& g, const Node& n) override;
  void copy(const Graph& g, const Node& n) override;
  void mul(const Graph& g, const Node& n) override;
  void silu(const Graph& g, const Node& n) override;
  void all_reduce(const Graph& g, const Node& n) override;

  // Quantised MulMat inputs (tests check reuse and invalidation).
  const Q8Cache& q8_cache() const { return q8_; }

 private:
  float* f32(int tensor) const { return static_cast<float*>(ptrs_[static_cast<size_t>(tensor)]); }
  const void* raw(int tensor) const { return ptrs_[static_cast<size_t>(tensor)]; }
  // The output of an op: every op gets it here, so a quantised copy of the
  // tensor is dropped before the tensor changes.
  float* output(int tensor) {
    q8_.invalidate(tensor);
    return f32(tensor);
  }

  struct FreeDeleter {
    void operator()(void* p) const;
  };

  const CpuKernels& kernels_;
  ThreadPool& pool_;
  std::vector<void*> ptrs_;
  std::vector<std::unique_ptr<void, FreeDeleter>> owned_;
  ReportedTensors reported_;  // after owned_: reported freed before the memory is
  Q8Cache q8_;                      // the last MulMat input, as Q8_K
  std::vector<float> inv_freq_;     // RoPE frequencies per pair
  std::vector<float> cos_, sin_;    // RoPE rotation of the current row
  int pos_ = 0;
};

}  // namespace bricklayer
