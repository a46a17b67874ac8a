// The device allocations the fake driver made (emulator_api.h). While any
// is live, a kernel's global access outside all of them fails the launch,
// as compute-sanitizer's memcheck would report it, instead of reading
// whatever host memory lies there: accesses past a buffer's end, and use
// after cuMemFree. (With none live, e.g. kernels launched on host buffers
// by the emulator's own tests, nothing is checked.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace cuda_emulator {

class DeviceAllocations {
 public:
  void add(uintptr_t begin, size_t bytes);
  void remove(uintptr_t begin);

  // "" if [address, address + size) lies in one live allocation (or none
  // is live), else what is wrong with it.
  std::string check(uintptr_t address, size_t size);

 private:
  std::map<uintptr_t, size_t> live_;  // begin -> bytes
  // Kernels alternate between a few buffers: the last ones found.
  struct Range {
    uintptr_t begin = 0, end = 0;
  };
  Range recent_[4];
  unsigned next_ = 0;
};

}  // namespace cuda_emulator
