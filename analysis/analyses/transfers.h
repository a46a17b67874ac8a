// Host<->device transfers: totals per direction, bandwidth per copy against
// the link, pageable copies, ping-pong round trips and repeated uploads of
// the same host range, each finding with the transfer whose scope names it
// (trace_scope.h's ScopeNamer, when rendered).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyses/machine_peaks.h"
#include "trace/model/trace.h"

namespace brickprof {

// A copy whose start and end are one timestamp (CUPTI's resolution, or a
// copy too small to measure) has no rate: it is left out of every rate and
// of the slow copies, and counted as zero-length.
struct DirectionTotal {
  Direction direction = Direction::kUnknown;
  uint64_t count = 0;
  uint64_t bytes = 0;
  int64_t time_ns = 0;
  uint64_t zero_length = 0;  // copies of no duration, among count
  uint64_t timed_bytes = 0;  // bytes of the others
  bool has_rate() const { return time_ns > 0; }
  // Over the copies that took time.
  double gbps() const {
    return has_rate() ? static_cast<double>(timed_bytes) / static_cast<double>(time_ns) : 0;
  }
};

struct CopyFinding {
  uint32_t node = kNoNode;
  uint64_t bytes = 0;
  int64_t duration_ns = 0;
  double gbps = 0;        // 0 without a rate
  double link_share = 0;  // achieved / link peak
  bool has_rate() const { return duration_ns > 0; }
};

// The same host range crossing the link back and forth: D2H then H2D (the
// data came back unchanged, as far as the trace shows), optionally preceded
// by the H2D that first put it there (H2D -> D2H -> H2D).
struct PingPong {
  std::vector<uint32_t> nodes;  // the transfers, in time order; the last closed the round trip
  uint64_t host_addr = 0;
  uint64_t bytes = 0;
};

struct RepeatedUpload {
  uint64_t host_addr = 0;
  uint64_t bytes = 0;
  uint64_t uploads = 0;  // H2D of this range with no D2H in between
  uint32_t first_node = kNoNode;
  uint32_t second_node = kNoNode;  // the first repeat (its scope names the finding)
  uint64_t wasted_bytes() const { return uploads > 1 ? (uploads - 1) * bytes : 0; }
};

struct TransferReport {
  std::vector<DirectionTotal> totals;  // directions that occur
  Peaks link;
  // H2D/D2H copies of 1 MiB or more below half the link, worst first
  // (smaller ones are latency-bound by nature; zero-length ones have no rate).
  std::vector<CopyFinding> slow;
  uint64_t pageable_count = 0, pageable_bytes = 0;
  std::vector<CopyFinding> pageable;  // every one, largest first
  std::vector<PingPong> ping_pongs;
  std::vector<RepeatedUpload> repeated;  // most wasted first
};

// O(n log n) in the number of transfers (one sort by host range and time).
TransferReport analyze_transfers(const Trace& trace, const PeakOverrides& overrides);

}  // namespace brickprof
