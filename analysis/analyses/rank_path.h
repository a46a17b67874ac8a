// The critical path across ranks through their collectives, and what-if.
// Each rank's run is a chain: a segment of its own work, a collective call,
// the next segment... A call is released when the ranks it waits for
// (wait_pattern) have arrived, and takes its transfer time (the call's time
// not spent waiting) after that. Walking back from the rank that ends last,
// the path stays on a rank until a call it waited in, then follows the
// rank that arrived last. What-if replays the chains with one rank's
// segments scaled to the median rank's total: "rank 3 as fast as the median
// rank" saves the difference in the end time. Assumes each rank makes its
// blocking collectives in order from one thread (SPMD).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/collectives.h"

namespace brickprof {

struct RankPathStep {
  uint32_t rank = kNoRank;
  bool transfer = false;           // inside a collective (after its release), else own work
  uint32_t instance = UINT32_MAX;  // CollectiveReport::instances index, for a transfer
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

struct RankPathShare {
  uint32_t rank = kNoRank;
  int64_t work_ns = 0;     // its segments: everything outside blocking collectives
  int64_t on_path_ns = 0;  // of its segments and transfers, on the path
};

struct RankWhatIf {
  uint32_t rank = kNoRank;
  double scale = 1;       // its segments x scale: the median rank's total
  int64_t saving_ns = 0;  // end time earlier by this much
};

struct RankPathReport {
  RankIndex ranks;
  int64_t start_ns = 0;               // first rank's start
  int64_t measured_end_ns = 0;        // last rank's end, as recorded
  int64_t modelled_end_ns = 0;        // the replay with the recorded durations
  std::vector<RankPathStep> path;     // in time order
  std::vector<RankPathShare> shares;  // by rank index
  std::vector<RankWhatIf> what_ifs;   // ranks above the median, largest saving first
  uint64_t collectives = 0;           // blocking calls in the chains
};

// Where each rank's chain starts and ends: its first start and last end
// over its nodes (range lanes left out); start INT64_MAX for a rank with none.
struct RankSpan {
  int64_t start_ns = INT64_MAX;
  int64_t end_ns = INT64_MIN;
};
std::vector<RankSpan> rank_spans(const Trace& trace, const RankIndex& ranks);

// O(calls log calls + nodes).
RankPathReport rank_critical_path(const Trace& trace, const CollectiveReport& collectives);
// The same from the ranks' spans (by RankIndex::ranks) and their matched
// collectives alone: all the path reads of a trace (a job's Parquet
// dataset hands these over without holding the trace).
RankPathReport rank_critical_path(const std::vector<RankSpan>& spans,
                                  const CollectiveReport& collectives);

}  // namespace brickprof
