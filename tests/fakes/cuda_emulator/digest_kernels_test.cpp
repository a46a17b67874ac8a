// Checksum mode's reduction kernels (agent/cupti/digest_reduce.cu) on the
// emulator, launched level by level as the agent's device path launches
// them (agent/cupti/device_digest.cpp): the root record gives digest_of's
// digest bit for bit, for every element type and for one, two and three
// levels of the tree.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/fakes/cuda_emulator/emulator_api.h"
#include "trace/model/checksum.h"

namespace brickprof {
namespace {

using digest_tree::Record;

struct Library {
  decltype(&cuda_emulator_track_allocation) track = nullptr;
  decltype(&cuda_emulator_forget_allocation) forget = nullptr;
  decltype(&cuda_emulator_launch) launch = nullptr;
  std::string error;  // why it did not load
};

const Library& library() {
  static const Library lib = [] {
    Library l;
    void* handle = dlopen(DIGEST_KERNELS, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      l.error = dlerror();
      return l;
    }
    l.track = reinterpret_cast<decltype(l.track)>(dlsym(handle, "cuda_emulator_track_allocation"));
    l.forget =
        reinterpret_cast<decltype(l.forget)>(dlsym(handle, "cuda_emulator_forget_allocation"));
    l.launch = reinterpret_cast<decltype(l.launch)>(dlsym(handle, "cuda_emulator_launch"));
    return l;
  }();
  return lib;
}

// Device memory for the emulator: host memory it is told of.
void* device_alloc(size_t bytes) {
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  library().track(p, bytes);
  return p;
}

void device_free(void* p) {
  library().forget(p);
  std::free(p);
}

void launch(const char* kernel, uint64_t threads, void** params) {
  const unsigned grid[3] = {static_cast<unsigned>((threads + 127) / 128), 1, 1};
  const unsigned block[3] = {128, 1, 1};
  char error[256] = "";
  ASSERT_EQ(library().launch(kernel, grid, block, 0, params, error, sizeof error), 0) << error;
}

// The device path's launches: chunks, then combine levels, ping-ponging.
Digest digest_on_device(const std::vector<unsigned char>& buffer, uint64_t count, ElementType type) {
  auto* data = static_cast<unsigned char*>(device_alloc(buffer.size() + 1));
  std::memcpy(data, buffer.data(), buffer.size());
  uint64_t bytes = count * digest_tree::size_of(type);
  const uint64_t chunks = digest_tree::chunk_count(bytes);
  auto* a = static_cast<Record*>(device_alloc(chunks * sizeof(Record)));
  auto* b = static_cast<Record*>(device_alloc(digest_tree::group_count(chunks) * sizeof(Record)));
  unsigned type_value = static_cast<unsigned>(type);
  Record* in = a;
  void* chunk_params[] = {&data, &bytes, &type_value, &in};
  launch("brickprof_digest_chunks", chunks, chunk_params);
  Record* out = b;
  uint64_t n = chunks;
  while (n > 1) {
    void* combine_params[] = {&in, &n, &out};
    launch("brickprof_digest_combine", digest_tree::group_count(n), combine_params);
    n = digest_tree::group_count(n);
    std::swap(in, out);
  }
  const Digest d = digest_of_root(*in, count);
  device_free(data);
  device_free(a);
  device_free(b);
  return d;
}

void expect_identical(const Digest& got, const Digest& want, const char* what) {
  EXPECT_EQ(got.fnv1a, want.fnv1a) << what;
  EXPECT_EQ(got.count, want.count) << what;
  // Bit for bit: the same roundings in the same order.
  EXPECT_EQ(std::memcmp(&got.sum, &want.sum, 8), 0) << what << " " << got.sum << " " << want.sum;
  EXPECT_EQ(std::memcmp(&got.l1, &want.l1, 8), 0) << what;
  EXPECT_EQ(std::memcmp(&got.l2, &want.l2, 8), 0) << what;
  EXPECT_EQ(std::memcmp(&got.min, &want.min, 8), 0) << what;
  EXPECT_EQ(std::memcmp(&got.max, &want.max, 8), 0) << what;
  EXPECT_EQ(got.nan, want.nan) << what;
  EXPECT_EQ(got.inf, want.inf) << what;
  EXPECT_EQ(std::memcmp(got.projections.data(), want.projections.data(), 8 * kProjections), 0)
      << what;
}

TEST(DigestKernels, EveryTypeGivesTheHostsDigestBitForBit) {
  ASSERT_NE(library().launch, nullptr) << DIGEST_KERNELS << ": " << library().error;
  std::mt19937 rng(11);
  // Random bytes: every bit pattern of every type turns up, NaNs and Infs
  // among them.
  std::vector<unsigned char> buffer((1 << 20) + 40);
  for (unsigned char& c : buffer) c = static_cast<unsigned char>(rng());
  for (ElementType type : {ElementType::kBytes, ElementType::kF32, ElementType::kF64,
                           ElementType::kF16, ElementType::kBf16, ElementType::kI32,
                           ElementType::kI64, ElementType::kI8, ElementType::kU8}) {
    const uint64_t size = digest_tree::size_of(type);
    // One chunk, a short one, two levels (1 MiB), two levels with short ends.
    for (uint64_t bytes : {uint64_t{0}, uint64_t{4096}, uint64_t{1000}, uint64_t{1} << 20,
                           uint64_t{(1 << 20) + 40}}) {
      const uint64_t count = bytes / size;
      const std::string what = std::string(to_string(type)) + " " + std::to_string(bytes);
      expect_identical(digest_on_device(buffer, count, type),
                       digest_of(buffer.data(), count, type), what.c_str());
    }
  }
}

TEST(DigestKernels, ThreeLevelsOfFloats) {
  ASSERT_NE(library().launch, nullptr) << DIGEST_KERNELS << ": " << library().error;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1e3f);
  // 4097 chunks: 65 records, then 2, then 1.
  std::vector<float> values(4097 * 1024 - 7);
  for (float& x : values) x = normal(rng);
  std::vector<unsigned char> buffer(values.size() * 4);
  std::memcpy(buffer.data(), values.data(), buffer.size());
  expect_identical(digest_on_device(buffer, values.size(), ElementType::kF32),
                   digest_of(values.data(), values.size(), ElementType::kF32), "f32");
}

}  // namespace
}  // namespace brickprof
