// The CUDA dispatcher: kernel launches per op through the driver API, eager or CUDA-graph replay.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda/driver_api.h"
#include "kernels/dispatch.h"
#include "kernels/memory_pools.h"

namespace bricklayer {

class CudaBackend final : public Dispatcher {
 public:
  // Null (and `error` set to one line) when there is no driver or device.
  static std::unique_ptr<CudaBackend> create(std::string* error);
  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  std::string device_name() const { return device_name_; }
  void prepare(const Graph& g) override;
  void begin_step(const Graph& g, const Step& s) override;
  void end_step(const Graph& g) override;
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

  bool can_capture() const override { return true; }
  void begin_capture() override;
  void end_capture() override;
  bool captured() const override { return exec_ != nullptr; }
  void replay(const Graph& g, const Step& s) override;

  // Streams a 1 GiB buffer through bl_read_sum; best pass in GB/s.
  double measure_read_bandwidth();

 private:
  struct Functions {
    CUfunction quantize_q8k, gemv_q4k, gemv_f32, rms_norm, rope, kv_write, attention, add, mul,
        silu, get_rows_q4k, get_rows_f32, read_sum;
  };

  explicit CudaBackend(const cuda::DriverApi& api) : api_(api) {}
  bool init(std::string* error);
  void check(CUresult r, const char* what) const;
  CUdeviceptr ptr(int tensor) const { return ptrs_[static_cast<size_t>(tensor)]; }
  // An op's output: the Q8_K copy of that tensor, if any, is stale from now.
  CUdeviceptr out(int tensor) {
    if (tensor == q8_tensor_) q8_tensor_ = -1;
    return ptr(tensor);
  }
  // The Q8_K form of a GEMV input, quantised now unless already held.
  CUdeviceptr quantized(const Graph& g, int tensor, int64_t k);
  void upload_step(const Graph& g, const Step& s);
  // cuMemAlloc, counted in driver_bytes().
  CUresult device_alloc(CUdeviceptr* p, size_t bytes);
  // The graph's tensors not placed yet, in one segment per pool.
  void place_tensors(const Graph& g);
  template <typename... Args>
  void launch(CUfunction f, unsigned gx, unsigned gy, unsigned block, unsigned smem,
              Args... args);

  const cuda::DriverApi& api_;
  CUdevice device_ = 0;
  int smem_optin_ = 0;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUstream stream_ = nullptr;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  bool capturing_ = false;
  Functions fn_{};
  std::string device_name_;
  std::vector<CUdeviceptr> ptrs_;
  std::vector<CUdeviceptr> owned_;  // every segment and buffer, freed at the end
  ReportedTensors reported_;         // the tensors handed out of the segments
  CUdeviceptr pos_ = 0;  // the step's position, read by rope, kv write, attention
  // Q8_K activations of the tensor q8_tensor_ (-1: none), as the CPU's
  // Q8Cache: Q, K and V share one quantisation, and so do gate and up.
  CUdeviceptr q8_ = 0;
  size_t q8_bytes_ = 0;
  int q8_tensor_ = -1;
};

std::unique_ptr<Dispatcher> make_cuda_backend(std::string* error);

}  // namespace bricklayer
