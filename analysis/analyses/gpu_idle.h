// GPU idle time: per device, when nothing ran on it (no kernel, copy or
// memset on any stream) between its first and last operation, and why. Each
// idle gap ends when an operation starts (of several starting together, the
// one issued first); the part of the gap before that
// operation's API call is time the GPU waited for the host to issue work
// (named by the host scope the launching thread was in), the rest is time
// between issue and start (launch latency, queueing behind a dependency).
// Graph-replayed kernels count as issued at their cuGraphLaunch. With
// capture windows in the trace, only gap time inside them is idle: between
// windows nothing was recorded.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// A host scope by its interned name (names are not copied per gap: they
// may be megabytes long), or kNoScope: the thread was in no scope.
inline constexpr StringId kNoScope = ~StringId{0};
// The name to show: the scope's, or "(no scope)".
std::string_view scope_name(const Trace& trace, StringId scope);

struct HostWait {
  StringId scope = kNoScope;  // the innermost host scope
  int64_t ns = 0;
};

struct IdleGap {
  int64_t start_ns = 0;
  int64_t ns = 0;                  // inside capture windows, if the trace has them
  int64_t host_ns = 0;             // of ns, before the next operation was issued
  uint32_t next = kNoNode;         // the operation that ended the gap (its scope
                                   // launched it: trace_scope.h names it)
  StringId host_scope = kNoScope;  // where the host spent most of host_ns (if any)
};

// Gap lengths by decade: < 10 µs, < 100 µs, < 1 ms, >= 1 ms.
inline constexpr std::array<int64_t, 3> kGapBucketLimitsNs = {10'000, 100'000, 1'000'000};

struct GapBucket {
  uint64_t count = 0;
  int64_t ns = 0;
};

struct DeviceIdle {
  uint32_t device = 0;
  std::string name;  // from devices[], else "gpuN"
  uint64_t operations = 0;
  int64_t span_ns = 0;             // first operation's start to last operation's end
  int64_t busy_ns = 0;             // union of the operations' intervals
  int64_t kernel_busy_ns = 0;      // union of the kernels' alone (copies excluded)
  int64_t outside_capture_ns = 0;  // between capture windows: not idle, unknown
  int64_t idle_ns() const { return span_ns - busy_ns - outside_capture_ns; }
  uint64_t gaps = 0;
  int64_t host_ns = 0;     // idle before the next operation was issued
  int64_t issued_ns = 0;   // idle after it was issued, before it started
  int64_t unknown_ns = 0;  // next operation without an API time
  std::array<GapBucket, kGapBucketLimitsNs.size() + 1> buckets{};
  std::vector<HostWait> host_scopes;  // every one, most first
  std::vector<IdleGap> largest;       // the ten longest gaps, longest first
};

struct GpuIdleReport {
  std::vector<DeviceIdle> devices;  // by device id
};

// Linear in the trace for recorded traces (operations and scopes arrive in
// order per device and thread; see lane_sort.h), O(n log n) at worst.
GpuIdleReport analyze_gpu_idle(const Trace& trace);

}  // namespace brickprof
