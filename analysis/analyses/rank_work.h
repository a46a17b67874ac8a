// What each node contributes to its rank's timeline, for the cross-rank
// views and the Chrome trace's CPU work track, by cpu_work.h's rule. A
// rank with GPU operations is measured on its GPUs, as Holistic Trace
// Analysis does: kernels are compute, NCCL's kernels communication, copies
// and memsets memory. A rank without is measured on its CPU (cpu_work.h).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/cpu_work.h"
#include "analysis/analyses/ranks.h"
#include "analysis/model/trace.h"

namespace brickprof {

struct RankWork {
  RankIndex ranks;
  std::vector<WorkClass> of_node;
  std::vector<bool> gpu_timeline;  // per rank: measured on its GPUs
};

// Linear: one walk up the parent chains with memoised answers.
RankWork classify_rank_work(const Trace& trace);

}  // namespace brickprof
