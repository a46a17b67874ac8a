// The live device allocations (see live_allocations.h).
#include "agent/cupti/live_allocations.h"

#include <atomic>
#include <iterator>
#include <map>
#include <mutex>
#include <new>

#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent::live_allocations {
namespace {

// A std::map node and the allocator's rounding, charged to the budget.
constexpr uint64_t kEntryBytes = 80;

struct State {
  std::mutex mutex;
  std::map<uint64_t, Allocation> by_base;
};

State* g_state = new State();  // never destroyed: memory calls go on during exit
std::atomic<uint64_t> g_dropped{0};

void start(State& s, const Allocation& a) {
  AgentLock lock(s.mutex);
  auto at = s.by_base.find(a.base);
  if (at != s.by_base.end()) {  // its free was missed (recording was off): replaced
    at->second = a;
    return;
  }
  if (s.by_base.size() >= kMaxAllocations || !budget::charge(kEntryBytes)) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  try {
    s.by_base.emplace(a.base, a);
  } catch (const std::bad_alloc&) {
    budget::release(kEntryBytes);
    g_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

void end(State& s, uint64_t base) {
  AgentLock lock(s.mutex);
  if (s.by_base.erase(base) != 0) budget::release(kEntryBytes);
}

}  // namespace

void note(const MemoryCallFacts& f) {
  if (f.host || f.address == 0) return;
  State& s = *g_state;
  switch (f.op) {
    case MemoryOp::kAlloc:
    case MemoryOp::kMap:
      // A physical allocation's address is its handle, not memory.
      if (f.source == MemorySource::kPhysical) return;
      if (f.bytes == 0) return;
      start(s, {f.address, f.bytes, f.source == MemorySource::kManaged});
      return;
    case MemoryOp::kFree:
    case MemoryOp::kUnmap:
      if (f.source == MemorySource::kPhysical) return;
      end(s, f.address);
      return;
    default:
      return;
  }
}

bool find(uint64_t address, Allocation* out) {
  State& s = *g_state;
  AgentLock lock(s.mutex);
  auto after = s.by_base.upper_bound(address);
  if (after == s.by_base.begin()) return false;
  const Allocation& a = std::prev(after)->second;
  if (address - a.base >= a.bytes) return false;
  *out = a;
  return true;
}

uint64_t dropped() { return g_dropped.load(std::memory_order_relaxed); }

void reset_after_fork() {
  g_state = new State();  // the parent's is abandoned, as the recorder's tables are
  g_dropped.store(0);
}

}  // namespace brickprof::agent::live_allocations
