// What checksum mode costs, without a GPU:
//  1. digest_of per element (trace/model/checksum.h), f32 and bytes, over a
//     buffer larger than the last-level cache (what a kernel output is);
//  2. the host-copy path per kernel on the fake driver executing kernels on
//     the CPU emulator (FAKE_CUDA_KERNELS): bricklayer's bl_add on N floats
//     launched in child processes alternating three ways: without the
//     agent, under the agent, and under the agent with BRICKPROF_CHECKSUMS=host.
//     checksums - agent = the sync, the copies of its three buffers and their
//     digests, per launch. What a GPU adds (a real sync and PCIe copies) is
//     scripts/gpu-check's checksum step, which also measures the device path
//     (on the emulator its kernels would be timed as CPU code: no figure).
//   checksum_cost AGENT FAKE_CUDA_DIR EMULATED_KERNELS KERNELS_PTX [n]
//   checksum_cost --child PTX N LAUNCHES       (one timed loop; prints ns per launch)
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/child_run.h"
#include "bench/stats.h"
#include "trace/model/checksum.h"

namespace {

constexpr int kRounds = 7;
constexpr long kLaunches = 200;
constexpr uint64_t kDigestElements = 16u << 20;  // 64 MiB of f32

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

void digest_cost() {
  std::vector<float> data(kDigestElements);
  for (uint64_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 977) * 0.125f - 7;
  for (brickprof::ElementType type : {brickprof::ElementType::kF32, brickprof::ElementType::kBytes}) {
    const uint64_t count = data.size() * sizeof(float) / brickprof::element_bytes(type);
    std::vector<double> ns;
    double sink = 0;
    for (int r = 0; r < kRounds; ++r) {
      const double t0 = now_ns();
      sink += brickprof::digest_of(data.data(), count, type).sum;
      ns.push_back((now_ns() - t0) / static_cast<double>(count));
    }
    std::printf("digest_of %-5s over %llu elements: %.2f ns/element, %.2f ns/byte (median of %d)%s\n",
                std::string(brickprof::to_string(type)).c_str(),
                static_cast<unsigned long long>(count), brickprof::bench::median(ns),
                brickprof::bench::median(ns) * count / (data.size() * sizeof(float)), kRounds,
                sink == 12345 ? " " : "");
  }
}

#define CHECK(call)                                                      \
  if ((call) != CUDA_SUCCESS) {                                          \
    std::fprintf(stderr, "checksum_cost: %s failed\n", #call);           \
    return 1;                                                            \
  }

int child(const char* ptx_path, int n, long launches) {
  std::ifstream in(ptx_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string ptx = text.str();
  CUdevice device;
  CUcontext ctx;
  CUmodule module;
  CUfunction add;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, device));
  CHECK(cuModuleLoadData(&module, ptx.c_str()));
  CHECK(cuModuleGetFunction(&add, module, "bl_add"));
  CUdeviceptr a, b, y;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  CHECK(cuMemAlloc(&a, bytes));
  CHECK(cuMemAlloc(&b, bytes));
  CHECK(cuMemAlloc(&y, bytes));
  std::vector<float> host(n, 1.5f);
  CHECK(cuMemcpyHtoD(a, host.data(), bytes));
  CHECK(cuMemcpyHtoD(b, host.data(), bytes));
  void* params[] = {&a, &b, &y, &n};
  const unsigned blocks = (n + 255) / 256;
  const double t0 = now_ns();
  for (long i = 0; i < launches; ++i)
    CHECK(cuLaunchKernel(add, blocks, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  CHECK(cuCtxSynchronize());
  std::printf("%.1f\n", (now_ns() - t0) / launches);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--child") == 0)
    return child(argv[2], std::atoi(argv[3]), std::atol(argv[4]));
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: checksum_cost AGENT FAKE_CUDA_DIR EMULATED_KERNELS KERNELS_PTX [n]\n");
    return 2;
  }
  digest_cost();
  const int n = argc > 5 ? std::atoi(argv[5]) : 65536;
  char out_dir[] = "/tmp/brickprof-checksums-XXXXXX";
  if (mkdtemp(out_dir) == nullptr) return 1;
  const std::vector<std::string> fake = {std::string("LD_LIBRARY_PATH=") + argv[2],
                                         std::string("FAKE_CUDA_KERNELS=") + argv[3]};
  std::vector<std::string> agent = fake;
  agent.push_back(std::string("LD_PRELOAD=") + argv[1]);
  agent.push_back(std::string("BRICKPROF_OUTPUT=") + out_dir + "/trace-%p");
  agent.push_back("BRICKPROF_FORMATS=json");
  std::vector<std::string> checksums = agent;
  checksums.push_back("BRICKPROF_CHECKSUMS=host");
  // Each child prints its wall ns per launch.
  const std::vector<std::string> child = {argv[0], "--child", argv[4], std::to_string(n),
                                          std::to_string(kLaunches)};
  std::vector<brickprof::bench::ChildCase> configs = {{"fake driver alone", fake, {}},
                                                      {"+ brickprof agent", agent, {}},
                                                      {"+ agent, checksums=host", checksums, {}}};
  if (!brickprof::bench::run_rounds("checksum_cost", child, configs, kRounds)) return 1;
  const std::vector<double> added = brickprof::bench::differences(configs[2], configs[1]);
  const std::string cleanup = std::string("rm -rf ") + out_dir;
  if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", out_dir);
  std::printf("bl_add on %d floats (3 buffers, %d bytes digested per launch) on the emulator, "
              "%ld launches, %d alternating rounds, wall ns per launch (median)\n",
              n, 3 * n * 4, kLaunches, kRounds);
  for (const brickprof::bench::ChildCase& c : configs)
    std::printf("  %-24s %10.0f\n", c.name, brickprof::bench::median(c.values));
  const double per_launch = brickprof::bench::median(added);
  std::printf("  host-copy path: %.0f ns per kernel, %.2f ns per byte digested (median of "
              "per-round differences)\n",
              per_launch, per_launch / (3.0 * n * 4));
  return 0;
}
