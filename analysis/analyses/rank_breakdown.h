// Each rank's time split the way Holistic Trace Analysis' temporal
// breakdown splits it, plus the waiting only a cross-rank view can see:
// over the span from the rank's first to its last work item (rank_work.h),
// compute, waiting (inside collectives, for later ranks), the rest of
// communication, memory operations and idle time partition the span, in
// that order of precedence; overlap is the communication that ran while the
// rank computed.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/collectives.h"
#include "analysis/analyses/memory_ranks.h"
#include "analysis/analyses/rank_work.h"

namespace brickprof {

struct RankBreakdown {
  uint32_t rank = kNoRank;  // RankIndex::ranks
  bool gpu = false;         // measured on its GPUs
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The span of its compute alone: what HTA measures a CPU rank over, the
  // CPU work track holding no communication (distributed_info.h).
  int64_t compute_start_ns = 0;
  int64_t compute_end_ns = 0;
  int64_t compute_ns = 0;
  int64_t waiting_ns = 0;
  int64_t communication_ns = 0;  // not computing, not waiting
  int64_t memory_ns = 0;
  int64_t idle_ns = 0;
  int64_t overlap_ns = 0;  // communication while computing

  int64_t span_ns() const { return end_ns - start_ns; }
  double share(int64_t ns) const {
    return span_ns() > 0 ? static_cast<double>(ns) / static_cast<double>(span_ns()) : 0;
  }
};

struct RankBreakdownReport {
  RankIndex ranks;
  std::vector<RankBreakdown> rows;  // ranks with any work, by rank index
  std::vector<RankMemory> memory;   // each rank's memory peaks (the ranks view fills it)
};

// A sweep over each rank's sorted interval ends: O(n log n).
RankBreakdownReport rank_breakdown(const Trace& trace, const RankWork& work,
                                   const CollectiveReport& collectives);

}  // namespace brickprof
