// Q4_K GEMV on the GPU against HBM: bricklayer's own bl_gemv_q4k (from the
// embedded PTX, as bricklayer loads it) over a weight matrix far larger than
// L2, interleaved round by round with bricklayer's read probe (bl_read_sum)
// over a buffer of the same size; CUDA events time both. x is quantised to
// Q8_K once by bl_quantize_q8k, as the backend does per input (not timed:
// 32 KB against 604 MB). Prints GB/s, the median of per-round ratios to the
// probe, and the fraction of the device's theoretical peak (memory clock x
// bus width x 2; 3.35 TB/s on an H100 SXM). Then checks the quantised x
// against the CPU's quantize_row_q8k (bit for bit) and sampled rows against
// the scalar reference dot_q4k_q8k_ref: exit 1 if wrong.
//   bench_q4k_cuda [rows cols rounds]     (default 131072 8192 20: 604 MB)
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/stats.h"
#include "kernels/cuda/block_q8k_gpu.h"
#include "kernels/cuda/driver_api.h"
#include "kernels/cuda/embedded.h"
#include "kernels/fp16.h"
#include "kernels/q4k.h"

namespace bricklayer {
namespace {

constexpr unsigned kBlock = 256, kWarps = kBlock / 32;  // as the CUDA backend launches

// Events are not in bricklayer's driver table (it times nothing on the GPU);
// cuEventElapsedTime_v2 exists only in recent drivers, so fall back.
struct Events {
  decltype(&::cuEventCreate) create;
  decltype(&::cuEventRecord) record;
  decltype(&::cuEventSynchronize) synchronize;
  decltype(&::cuEventElapsedTime) elapsed;
  decltype(&::cuEventDestroy) destroy;
};

template <typename Fn>
void resolve(void* lib, Fn* fn, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (void* sym = dlsym(lib, n)) {
      std::memcpy(fn, &sym, sizeof sym);
      return;
    }
  throw std::runtime_error(std::string("libcuda.so.1 lacks ") + *names.begin());
}

Events load_events() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) throw std::runtime_error("libcuda.so.1 not loaded");
  Events e{};
  resolve(lib, &e.create, {"cuEventCreate"});
  resolve(lib, &e.record, {"cuEventRecord"});
  resolve(lib, &e.synchronize, {"cuEventSynchronize"});
  resolve(lib, &e.elapsed, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  resolve(lib, &e.destroy, {"cuEventDestroy_v2"});
  return e;
}

// The device, bricklayer's two kernels, a stream and two events.
struct Gpu {
  Gpu(const cuda::DriverApi& a, const Events& e) : api(a), ev(e) {}

  void check(CUresult r, const char* what) const {
    if (r != CUDA_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cuda::error_text(api, r));
  }

  void init() {
    check(api.cuInit(0), "cuInit");
    check(api.cuDeviceGet(&device, 0), "cuDeviceGet");
    char device_name[256] = {};
    api.cuDeviceGetName(device_name, sizeof device_name - 1, device);
    name = device_name;
    check(api.cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain");
    check(api.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    check(api.cuModuleLoadData(&module, bricklayer_kernels_ptx), "cuModuleLoadData");
    check(api.cuModuleGetFunction(&quantize, module, "bl_quantize_q8k"), "bl_quantize_q8k");
    check(api.cuModuleGetFunction(&gemv, module, "bl_gemv_q4k"), "bl_gemv_q4k");
    check(api.cuModuleGetFunction(&probe, module, "bl_read_sum"), "bl_read_sum");
    check(api.cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate");
    check(ev.create(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    check(ev.create(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    int mem_khz = 0, bus_bits = 0;
    check(api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "SM count");
    check(api.cuDeviceGetAttribute(&mem_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, device), "memory clock");
    check(api.cuDeviceGetAttribute(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device), "bus width");
    peak_gbps = 2.0 * mem_khz * 1e3 * bus_bits / 8 / 1e9;  // double data rate
  }

  CUdeviceptr upload(const void* host, size_t bytes) {
    CUdeviceptr p = 0;
    check(api.cuMemAlloc(&p, bytes), "cuMemAlloc");
    if (host != nullptr) {
      check(api.cuMemcpyHtoD(p, host, bytes), "cuMemcpyHtoD");
    } else {
      check(api.cuMemsetD8(p, 0, bytes), "cuMemsetD8");
    }
    return p;
  }

  // Milliseconds of one launch, timed by events on the stream.
  template <typename... Args>
  double time_launch(CUfunction f, unsigned gx, unsigned gy, unsigned smem, Args... args) {
    void* params[] = {static_cast<void*>(&args)...};
    check(ev.record(start, stream), "cuEventRecord");
    check(api.cuLaunchKernel(f, gx, gy, 1, kBlock, 1, 1, smem, stream, params, nullptr),
          "cuLaunchKernel");
    check(ev.record(stop, stream), "cuEventRecord");
    check(ev.synchronize(stop), "cuEventSynchronize");
    float ms = 0;
    check(ev.elapsed(&ms, start, stop), "cuEventElapsedTime");
    return ms;
  }

  const cuda::DriverApi& api;
  const Events& ev;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUfunction quantize = nullptr, gemv = nullptr, probe = nullptr;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  std::string name;
  int sms = 0;
  double peak_gbps = 0;
};

int run(int64_t rows, int64_t cols, int rounds) {
  std::string why;
  const cuda::DriverApi* api = cuda::driver_api(&why);
  if (api == nullptr) {
    std::fprintf(stderr, "bench_q4k_cuda: %s\n", why.c_str());
    return 77;  // no driver: nothing to measure
  }
  const Events events = load_events();
  Gpu b(*api, events);
  b.init();

  // Random but valid blocks: the kernel's speed does not depend on the values.
  const int64_t blocks = rows * (cols / kQK);
  std::vector<BlockQ4K> w(static_cast<size_t>(blocks));
  std::mt19937_64 rng(1);
  for (BlockQ4K& blk : w) {
    blk.d = float_to_half(0.01f);
    blk.dmin = float_to_half(0.005f);
    for (auto& s : blk.scales) s = static_cast<uint8_t>(rng());
    for (auto& q : blk.qs) q = static_cast<uint8_t>(rng());
  }
  const size_t weight_bytes = w.size() * sizeof(BlockQ4K);
  std::vector<float> x(static_cast<size_t>(cols));
  for (float& v : x) v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  CUdeviceptr dw = b.upload(w.data(), weight_bytes);
  CUdeviceptr dx = b.upload(x.data(), x.size() * sizeof(float));
  CUdeviceptr dy = b.upload(nullptr, static_cast<size_t>(rows) * sizeof(float));
  const int nb = static_cast<int>(cols / kQK);
  CUdeviceptr dxq = b.upload(nullptr, static_cast<size_t>(nb) * sizeof(BlockQ8KGpu));
  b.time_launch(b.quantize, (nb + kWarps - 1) / kWarps, 1, 0, dx, dxq, nb);
  CUdeviceptr probe_buf = b.upload(nullptr, weight_bytes / 16 * 16);
  CUdeviceptr probe_out = b.upload(nullptr, sizeof(float));

  const double gemv_bytes = static_cast<double>(weight_bytes) + nb * sizeof(BlockQ8KGpu) + rows * 4.0;
  const double probe_bytes = static_cast<double>(weight_bytes / 16 * 16);
  const unsigned gemv_grid = static_cast<unsigned>((rows + kWarps - 1) / kWarps);  // a warp a row
  const unsigned probe_grid = static_cast<unsigned>(b.sms) * 8u;  // as bricklayer's probe
  const int n = static_cast<int>(rows), k = static_cast<int>(cols);
  const size_t n4 = weight_bytes / 16;
  double best_gemv = 1e30, best_probe = 1e30;
  std::vector<double> ratios;
  for (int r = -2; r < rounds; ++r) {  // two warm-up rounds
    double p = b.time_launch(b.probe, probe_grid, 1, 0, probe_buf, n4, probe_out);
    double g = b.time_launch(b.gemv, gemv_grid, 1, 0, dw, dxq, dy, n, k);
    if (r < 0 || p <= 0 || g <= 0) continue;
    best_probe = std::min(best_probe, p);
    best_gemv = std::min(best_gemv, g);
    ratios.push_back((gemv_bytes / g) / (probe_bytes / p));
  }
  if (ratios.empty()) {
    std::fprintf(stderr, "bench_q4k_cuda: no usable round\n");
    return 1;
  }
  const double gemv_gbps = gemv_bytes / best_gemv / 1e6, probe_gbps = probe_bytes / best_probe / 1e6;
  std::printf("device: %s, %d SMs, theoretical peak %.0f GB/s\n", b.name.c_str(), b.sms,
              b.peak_gbps);
  std::printf("Q4_K GEMV %lld x %lld (%.0f MB): best %.3f ms = %.0f GB/s\n",
              static_cast<long long>(rows), static_cast<long long>(cols), weight_bytes / 1e6,
              best_gemv, gemv_gbps);
  std::printf("read probe (%.0f MB): best %.3f ms = %.0f GB/s\n", probe_bytes / 1e6, best_probe,
              probe_gbps);
  std::printf("GEMV / probe: median of %zu rounds %.1f%% (best vs best %.1f%%)\n", ratios.size(),
              100 * brickprof::bench::median(ratios), 100 * gemv_gbps / probe_gbps);
  std::printf("GEMV / theoretical peak: %.1f%%\n", b.peak_gbps > 0 ? 100 * gemv_gbps / b.peak_gbps : 0.0);
  // A fast wrong kernel is no result. The GPU's Q8_K must be the CPU's, bit
  // for bit; then sampled rows against the scalar reference on those values
  // (tolerance: float sums in another order).
  std::vector<BlockQ8K> xq(static_cast<size_t>(nb));
  quantize_row_q8k(x.data(), xq.data(), cols);
  std::vector<BlockQ8KGpu> gq(xq.size());
  b.check(api->cuMemcpyDtoH(gq.data(), dxq, gq.size() * sizeof(BlockQ8KGpu)), "cuMemcpyDtoH");
  int q8_mismatches = 0;
  for (size_t i = 0; i < xq.size(); ++i) {
    q8_mismatches += std::memcmp(gq[i].qs, xq[i].qs, sizeof xq[i].qs) != 0 ||
                     std::memcmp(gq[i].bsums, xq[i].bsums, sizeof xq[i].bsums) != 0 ||
                     gq[i].d != xq[i].d;
  }
  std::printf("check: %d of %d Q8_K blocks differ from the CPU's quantize_row_q8k\n", q8_mismatches,
              nb);
  std::vector<float> y(static_cast<size_t>(rows));
  b.check(api->cuMemcpyDtoH(y.data(), dy, y.size() * sizeof(float)), "cuMemcpyDtoH");
  double max_err = 0, max_ref = 1e-30;
  int64_t checked = 0;
  for (int64_t r = 0; r < rows; r += std::max<int64_t>(1, rows / 256), ++checked) {
    const float ref = dot_q4k_q8k_ref(&w[static_cast<size_t>(r * nb)], xq.data(), nb);
    const double err = std::fabs(static_cast<double>(y[static_cast<size_t>(r)]) - ref);
    max_err = std::isfinite(err) ? std::max(max_err, err) : INFINITY;
    max_ref = std::max(max_ref, std::fabs(static_cast<double>(ref)));
  }
  const double rel = max_err / max_ref;
  std::printf("check: %lld sampled rows vs the scalar reference, max error %.2g of the largest "
              "value%s\n",
              static_cast<long long>(checked), rel, rel < 1e-4 ? "" : " - WRONG RESULTS");
  return rel < 1e-4 && q8_mismatches == 0 ? 0 : 1;
}

}  // namespace
}  // namespace bricklayer

int main(int argc, char** argv) {
  int64_t rows = argc > 1 ? std::atoll(argv[1]) : 131072;
  int64_t cols = argc > 2 ? std::atoll(argv[2]) : 8192;
  int rounds = argc > 3 ? std::atoi(argv[3]) : 20;
  if (rows < 1 || cols < bricklayer::kQK || cols % bricklayer::kQK != 0 || rounds < 1) {
    std::fprintf(stderr, "usage: bench_q4k_cuda [rows cols rounds]  (cols a multiple of 256)\n");
    return 2;
  }
  try {
    return bricklayer::run(rows, cols, rounds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_q4k_cuda: %s\n", e.what());
    return 1;
  }
}
