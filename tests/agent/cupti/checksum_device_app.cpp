// brickprof_checksum of device pointers on the fake driver (device memory
// is host memory there only when it executes kernels: FAKE_CUDA_KERNELS).
// Under one scope it digests: a device buffer it uploaded, the same from
// 8 floats in, a host copy of the same data, and a range that runs past its
// allocation (left out and counted). It writes the uploaded floats' bytes
// as hex to OUT_FILE for the test to digest itself.
//   checksum_device_app OUT_FILE
#include <brickprof/brickprof.h>
#include <cuda.h>

#include <cstdio>
#include <vector>

#include "../../fakes/cuda_driver/check_call.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  constexpr int kN = 512;
  std::vector<float> data(kN);
  for (int i = 0; i < kN; ++i) data[i] = 0.5f * static_cast<float>(i) - 17.0f;
  CUdevice device;
  CUcontext ctx;
  CUdeviceptr buffer;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, device));
  CHECK(cuMemAlloc(&buffer, kN * sizeof(float)));
  CHECK(cuMemcpyHtoD(buffer, data.data(), kN * sizeof(float)));
  {
    BRICKPROF_SCOPE("outputs");
    const void* device_ptr = reinterpret_cast<const void*>(buffer);
    BRICKPROF_CHECKSUM("device", device_ptr, kN, "f32");
    BRICKPROF_CHECKSUM("device+8", static_cast<const float*>(device_ptr) + 8, kN - 8, "f32");
    BRICKPROF_CHECKSUM("host", data.data(), kN, "f32");
    BRICKPROF_CHECKSUM("past the end", device_ptr, kN + 1, "f32");
  }
  FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) return 1;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  for (size_t i = 0; i < kN * sizeof(float); ++i) std::fprintf(out, "%02x", bytes[i]);
  std::fclose(out);
  CHECK(cuMemFree(buffer));
  std::puts("ok");
  return 0;
}
