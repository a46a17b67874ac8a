// Each rank's memory peaks (see memory_ranks.h).
#include "analysis/analyses/memory_ranks.h"

#include <algorithm>

namespace brickprof {

std::vector<RankMemory> memory_per_rank(const Trace& t, const RankIndex& ranks) {
  std::vector<RankMemory> out;
  if (t.memory.empty()) return out;
  const MemoryLedger ledger = build_memory_ledger(t);
  for (const AccountSeries& a : ledger.accounts) {
    if (a.events.empty()) continue;
    RankMemory m;
    for (uint32_t r = 0; r < ranks.ranks.size(); ++r)
      if (ranks.ranks[r].source == a.key.source) m.rank = r;
    m.key = a.key;
    m.peak = a.peak;
    m.peak_ns = t.memory[a.events[a.peak_at]].time_ns;
    if (a.key.account == MemoryAccount::kDevice)
      for (const Device& d : t.devices)
        if (d.id == a.key.device) m.device_bytes = d.memory_bytes;
    out.push_back(m);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankMemory& a, const RankMemory& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace brickprof
