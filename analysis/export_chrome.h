// Chrome trace event JSON (<prefix>.trace.json), for Perfetto UI and
// chrome://tracing: CPU scopes as nested slices per thread, GPU work on one
// process track per device with a thread track per stream, and flow arrows
// from each launching scope to its kernel. A rank of a job also carries
// Kineto's distributedInfo and, computing on its CPU, a CPU work track
// (distributed_info.h), for Holistic Trace Analysis.
#pragma once

#include <cstdint>
#include <ostream>

#include "analysis/trace.h"

namespace brickprof {

// GPU device d is shown as pid kGpuPidBase + d: above Linux's largest pid
// (2^22), so it never collides with the CPU process.
inline constexpr int64_t kGpuPidBase = int64_t{1} << 22;
// Merged traces whose sources share a pid: the later ones are shown as
// kSourcePidBase + their index, above both real and GPU pids.
inline constexpr int64_t kSourcePidBase = int64_t{1} << 23;
// A rank's CPU work track (distributed_info.h): above the source pids.
inline constexpr int64_t kCpuWorkPid = int64_t{1} << 24;
// The capture windows' track: above any thread id, below the range lanes.
inline constexpr int64_t kCaptureTid = int64_t{kRangeLaneBase} - 1;

void write_chrome_trace(const Trace& trace, std::ostream& out);

}  // namespace brickprof
