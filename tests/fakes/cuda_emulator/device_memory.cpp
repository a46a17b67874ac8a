// Live device allocations and the bounds check (see device_memory.h).
#include "device_memory.h"

#include <cstdio>

namespace cuda_emulator {
namespace {

std::string hex(uintptr_t v) {
  char s[32];
  std::snprintf(s, sizeof s, "%#lx", static_cast<unsigned long>(v));
  return s;
}

}  // namespace

void DeviceAllocations::add(uintptr_t begin, size_t bytes) {
  live_[begin] = bytes;
}

void DeviceAllocations::remove(uintptr_t begin) {
  live_.erase(begin);
  for (Range& r : recent_) r = Range{};
}

std::string DeviceAllocations::check(uintptr_t address, size_t size) {
  if (live_.empty()) return "";
  const uintptr_t end = address + size;
  for (const Range& r : recent_)
    if (address >= r.begin && end <= r.end) return "";
  auto above = live_.upper_bound(address);
  if (above != live_.begin()) {
    const auto [begin, bytes] = *std::prev(above);
    if (end <= begin + bytes) {
      recent_[next_++ % 4] = Range{begin, begin + bytes};
      return "";
    }
    if (address < begin + bytes)
      return "runs " + std::to_string(end - begin - bytes) + " bytes past the end of the " +
             std::to_string(bytes) + "-byte allocation at " + hex(begin);
    return "lies " + std::to_string(address - begin - bytes) + " bytes past the end of the " +
           std::to_string(bytes) + "-byte allocation at " + hex(begin) +
           " (out of bounds, or freed)";
  }
  return "lies below every live allocation (out of bounds, or freed)";
}

}  // namespace cuda_emulator
