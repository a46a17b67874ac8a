// The trace's memory events resolved into accounts (the rule:
// trace/derive/memory_accounts.h) and kept: which account each event
// changes, each free paired with the allocation it ends, and every
// account's live bytes after each of its events. Every memory figure of
// the views (report --memory, the per-node figures, the page's chart, the
// browser's tab) stands on this one ledger, so they agree.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "trace/derive/memory_accounts.h"
#include "trace/model/trace.h"

namespace brickprof {

// One account's history: the events that changed it, in time order, and
// its live bytes after each.
struct AccountSeries {
  MemoryAccountKey key;
  std::vector<uint32_t> events;  // into Trace::memory
  std::vector<uint64_t> live;    // after events[i]
  uint64_t peak = 0;             // the highest live, first reached after events[peak_at]
  size_t peak_at = 0;            // index into events; meaningless when events is empty
  uint64_t allocated = 0, allocations = 0;
  uint64_t freed = 0, frees = 0;
  uint64_t live_at_exit = 0;
  uint64_t unpaired_frees = 0;     // a free of an address with no live allocation
  uint64_t unrecorded_frees = 0;   // an allocation at an address still live: the earlier ended
  uint64_t failed = 0;             // calls that returned an error (nothing changed)
  uint64_t out_of_memory = 0;      // of them, CUDA_ERROR_OUT_OF_MEMORY

  // Live bytes after every event of this account at or before `time_ns`
  // (`inclusive`) or strictly before it. O(log n).
  uint64_t live_at(int64_t time_ns, bool inclusive, const Trace& trace) const;
};

// What the ledger makes of one event of Trace::memory.
struct ResolvedEvent {
  uint32_t account = kNoAccount;  // into MemoryLedger::accounts; none for maps, trims, failures
  // An allocation: the event that ended it (a free, or a later allocation
  // at its address), kNoEvent while still live at exit. A free: the
  // allocation it ended, kNoEvent when unpaired.
  uint32_t pair = kNoEvent;
  uint64_t bytes = 0;  // an allocation's bytes; a free's, those of what it ended
  // An allocation's entry in its account's series, and the entry that ended
  // it (kNoEvent while live at exit): live after entry k when at <= k < ended_at.
  uint32_t at = kNoEvent, ended_at = kNoEvent;
  bool changes() const { return account != kNoAccount && bytes != 0; }
};

struct MemoryLedger {
  std::vector<AccountSeries> accounts;  // in order of first appearance
  std::vector<ResolvedEvent> events;    // parallel to Trace::memory
  std::vector<uint32_t> order;          // event ids in time order (ties: as recorded)
  // A failed allocation, and how many entries its account's series had
  // then: the live set it met is the allocations with at < before <= ended_at.
  struct FailedAllocation {
    uint32_t event = kNoEvent;
    uint32_t account = kNoAccount;
    uint32_t before = 0;
  };
  std::vector<FailedAllocation> failed;  // in time order
  uint64_t maps = 0, mapped_bytes = 0, unmaps = 0, trims = 0;

  uint32_t account_of(const MemoryAccountKey& key) const;  // kNoAccount if none
  // End of an allocation's life: the time of the event that ended it, or
  // INT64_MAX while live at exit.
  int64_t ended_ns(const Trace& trace, uint32_t alloc) const;
};

// One pass over the events in time order (a stable sort first when a
// hand-made trace is not in order): O(n log n) at worst, linear when sorted.
MemoryLedger build_memory_ledger(const Trace& trace);

}  // namespace brickprof
