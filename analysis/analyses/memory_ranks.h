// Each rank's memory in a merged job (the cross-rank views): per rank and
// account, the peak and, for a GPU's device memory, the headroom left
// (memory_ledger.h's accounts; in a merged trace each rank's are its own).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/memory_ledger.h"
#include "analysis/analyses/ranks.h"

namespace brickprof {

struct RankMemory {
  uint32_t rank = kNoRank;  // RankIndex::ranks
  MemoryAccountKey key;
  uint64_t peak = 0;
  int64_t peak_ns = 0;        // when it was first reached
  uint64_t device_bytes = 0;  // a device account's GPU memory, when known; else 0
  uint64_t headroom() const { return device_bytes > peak ? device_bytes - peak : 0; }
};

// By rank, then in the ledger's order of accounts. Linear in the events.
std::vector<RankMemory> memory_per_rank(const Trace& trace, const RankIndex& ranks);

}  // namespace brickprof
