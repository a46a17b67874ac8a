// The device memory live now, as the memory calls the agent intercepts
// (memory_calls.h) left it: an interval map from address to allocation,
// so checksum mode and brickprof_checksum can tell a device pointer from a
// host one and know how far the buffer it points into goes. Bounded: an
// allocation past kMaxAllocations (or the budget) is counted, not kept,
// and a pointer into it reads as unknown.
#pragma once

#include <cstdint>

#include "agent/cupti/memory_calls.h"

namespace brickprof::agent::live_allocations {

struct Allocation {
  uint64_t base = 0;
  uint64_t bytes = 0;
  bool managed = false;  // cuMemAllocManaged: host-readable too
};

inline constexpr uint64_t kMaxAllocations = 1u << 20;

// One memory call's effect (the call succeeded): an allocation or mapping
// of device memory starts; a free or unmap ends the one at its address.
// Host memory (pinned, registered), pool trims and physical handles change
// nothing here.
void note(const MemoryCallFacts& facts);
// The live allocation `address` lies in; false when none is known.
bool find(uint64_t address, Allocation* out);
// Allocations not kept (the bound or the budget).
uint64_t dropped();

// In a fork child: the parent's lock may have been held by another thread.
void reset_after_fork();

}  // namespace brickprof::agent::live_allocations
