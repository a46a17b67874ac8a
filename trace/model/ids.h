// The ids that mean "none" in the trace model, and the host's device id.
#pragma once

#include <cstdint>
#include <limits>

namespace brickprof {

inline constexpr uint32_t kNoNode = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kNoDetail = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kNoPythonStack = std::numeric_limits<uint32_t>::max();

// The id of the host's devices[] entry (named "cpu", see machine_peaks.h):
// above any CUDA ordinal, so no GPU node can name it.
inline constexpr uint32_t kHostDeviceId = 0x80000000u;

}  // namespace brickprof
