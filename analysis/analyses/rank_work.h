// What each node contributes to its rank's timeline, for the cross-rank
// views and the Chrome export's CPU work track. A rank with GPU operations
// is measured on its GPUs, as Holistic Trace Analysis does: kernels are
// compute, NCCL's kernels communication, copies and memsets memory. A rank
// without is measured on its CPU, by trace/derive/cpu_work.h's rule.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/ranks.h"
#include "trace/model/trace.h"

namespace brickprof {

enum class WorkClass : uint8_t { kNone, kCompute, kCommunication, kMemory };

struct RankWork {
  RankIndex ranks;
  std::vector<WorkClass> of_node;
  std::vector<bool> gpu_timeline;  // per rank: measured on its GPUs
};

// Linear: one walk up the parent chains with memoised answers.
RankWork classify_rank_work(const Trace& trace);

}  // namespace brickprof
