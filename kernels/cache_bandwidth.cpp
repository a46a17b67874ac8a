// Cache sizes and per-level read bandwidth (see cache_bandwidth.h).
#include "kernels/cache_bandwidth.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace bricklayer {
namespace {

// "32K", "1024K", "32M" as sysfs writes them; 0 when unreadable.
int64_t parse_size(const std::string& text) {
  char* end = nullptr;
  const long long n = std::strtoll(text.c_str(), &end, 10);
  if (n <= 0 || end == text.c_str()) return 0;
  if (*end == 'K') return n << 10;
  if (*end == 'M') return n << 20;
  if (*end == 'G') return n << 30;
  return n;
}

bool read_line(const std::string& path, std::string* out) {
  std::ifstream in(path);
  return static_cast<bool>(std::getline(in, *out));
}

bool sizes_from_sysfs(CacheSizes& s) {
  bool any = false;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string level, type, size;
    if (!read_line(dir + "/level", &level)) break;
    if (!read_line(dir + "/type", &type) || !read_line(dir + "/size", &size)) continue;
    const int l = std::atoi(level.c_str());
    if (l < 1 || l > 3 || type == "Instruction") continue;
    if (const int64_t bytes = parse_size(size)) {
      s.bytes[l - 1] = bytes;
      any = true;
    }
  }
  return any;
}

}  // namespace

CacheSizes cache_sizes() {
  CacheSizes s;
  const int64_t fallback[3] = {32 << 10, 1 << 20, 8 << 20};
  if (sizes_from_sysfs(s)) {
    s.source = "sysfs";
  } else {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
               l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    s.bytes[0] = l1 > 0 ? l1 : 0;
    s.bytes[1] = l2 > 0 ? l2 : 0;
    s.bytes[2] = l3 > 0 ? l3 : 0;
    s.source = "sysconf";
#endif
  }
  // A level neither source knows gets the fallback, and says so.
  for (int i = 0; i < 3; ++i) {
    if (s.bytes[i] > 0) continue;
    s.bytes[i] = fallback[i];
    s.source = "default";
  }
  return s;
}

CacheBandwidth measure_cache_bandwidth(const CpuKernels& k, const CacheSizes& sizes,
                                       double seconds) {
  CacheBandwidth r;
  constexpr int64_t kBytesPerPass = 8 << 20;  // a pass long enough for the clock
  for (int level = 0; level < 3; ++level) {
    const int64_t n =
        std::max<int64_t>(sizes.bytes[level] / 2 / 64 * 16, 16);  // floats, 64 B lines
    std::vector<float> buf(static_cast<size_t>(n), 1.0f);
    const int64_t repeats = std::max<int64_t>(1, kBytesPerPass / (n * 4));
    std::atomic<float> sink{k.sum(buf.data(), n)};  // brings it into the cache
    double best = 1e30;
    const auto start = std::chrono::steady_clock::now();
    do {
      const auto t0 = std::chrono::steady_clock::now();
      float s = 0;
      for (int64_t i = 0; i < repeats; ++i) s += k.sum(buf.data(), n);
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sink.store(s, std::memory_order_relaxed);
      best = std::min(best, dt);
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
             seconds);
    r.working_set[level] = n * 4;
    r.gbps[level] = static_cast<double>(n * 4 * repeats) / best / 1e9;
  }
  return r;
}

}  // namespace bricklayer
