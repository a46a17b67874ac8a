// `report --memory`: per account, the peak and what was live at that
// instant (by scope path and by Python line), the largest allocating
// sites, the headroom left on the device, what is still live at exit (by
// allocating site); scopes repeated under one path whose allocations
// survive every repetition (growth per step); each out-of-memory failure
// with the live set it met. analysis/README.md ("Memory") defines each
// figure.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/memory_ledger.h"
#include "analysis/analyses/memory_nodes.h"
#include "analysis/analyses/memory_scopes.h"
#include "trace/model/trace.h"

namespace brickprof {

// Live or allocated bytes under one key: a scope path, or a Python frame.
struct MemoryGroup {
  uint32_t key = kNoPath;
  uint64_t bytes = 0;
  uint64_t count = 0;  // allocations
};

// Where allocations were made: the scope path and the Python line.
struct MemorySite {
  uint32_t path = kNoPath;
  uint32_t frame = kNoFrame;
  uint64_t bytes = 0;
  uint64_t count = 0;
};

struct AccountMemory {
  uint32_t account = kNoAccount;  // into MemoryReport::ledger.accounts
  uint32_t peak_event = kNoEvent;  // the event that reached the peak (kNoEvent: none)
  uint64_t device_bytes = 0;       // the device's memory (device account, when known), else 0
  std::vector<MemoryGroup> peak_by_scope, peak_by_line;  // live at the peak, largest first
  std::vector<MemorySite> sites;                         // every site, most bytes first
  std::vector<MemorySite> live_at_exit;                  // by allocating site, most bytes first
};

// A scope path run more than once whose every run left allocations alive
// until the last run ended: "survivors" of a run are the bytes allocated
// inside it (it or its descendants) not freed by the end of the path's last run.
struct GrowingScope {
  uint32_t path = kNoPath;
  uint32_t account = kNoAccount;
  uint64_t runs = 0;
  uint64_t total = 0;  // survivors of every run
  uint64_t least = 0, most = 0;  // one run's
  uint64_t per_run() const { return runs ? total / runs : 0; }
};

// A failed allocation with CUDA_ERROR_OUT_OF_MEMORY and what it met.
struct OutOfMemory {
  uint32_t event = kNoEvent;      // into Trace::memory
  uint32_t account = kNoAccount;
  uint64_t live = 0;              // the account's live bytes then
  uint64_t device_bytes = 0;      // the device's memory, when known
  std::vector<MemoryGroup> live_by_scope;  // largest first
};

struct MemoryReport {
  MemoryLedger ledger;
  ScopePaths paths;  // the paths the groups name
  NodeMemoryIndex nodes;  // every layer, brick and scope's figures (memory_nodes.h)
  std::vector<AccountMemory> accounts;  // as ledger.accounts
  std::vector<GrowingScope> growing;    // most total first
  std::vector<OutOfMemory> out_of_memory;  // the first kDetailedFailures, in time order
  uint64_t out_of_memory_count = 0;       // all of them
  uint64_t other_failures = 0;            // failed allocations with another error
  static constexpr size_t kDetailedFailures = 10;
};

// O(n log n) in events and nodes.
MemoryReport analyze_memory(const Trace& trace);

}  // namespace brickprof
