// Load imbalance across ranks: each rank's compute time (rank_work.h)
// inside every layer index and every brick name, its max/mean over the
// ranks, the straggler (the rank with the most) and how much more it
// spends than the mean of the others, per instance. Communication is left
// out: waiting in an all-reduce is the symptom, not the load.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/rank_work.h"

namespace brickprof {

struct ImbalanceRow {
  bool layer = false;  // a layer index, else a brick name
  int32_t layer_index = -1;
  StringId brick = 0;               // brick name (in the trace's strings)
  std::vector<int64_t> compute_ns;  // per rank index
  std::vector<uint64_t> instances;  // layer or brick nodes per rank
  int64_t max_ns = 0;
  double mean_ns = 0;
  uint32_t straggler = kNoRank;
  // The straggler's compute minus the mean of the other ranks', per
  // instance it ran: what it cost the others to wait for it each time.
  double excess_per_instance_ns = 0;

  double ratio() const { return mean_ns > 0 ? static_cast<double>(max_ns) / mean_ns : 0; }
};

struct ImbalanceReport {
  RankIndex ranks;
  std::vector<ImbalanceRow> layers;  // by layer index
  std::vector<ImbalanceRow> bricks;  // by total compute, most first
};

// Linear: compute leaves are attributed to their nearest layer and brick.
ImbalanceReport analyze_imbalance(const Trace& trace, const RankWork& work);

}  // namespace brickprof
