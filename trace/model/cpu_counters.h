// The CPU's own counters per scope (BRICKPROF_CPU_COUNTERS): what
// perf_event_open counted on a scope's thread between its push and its pop —
// cycles, instructions and cache misses where the machine has a PMU, or the
// kernel's software events (task-clock, page faults, context switches). A
// node's values include its children's, as its time does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof {

// At most this many counters are read together (one perf group).
inline constexpr size_t kMaxCpuCounters = 5;

struct NodeCpuCounters {
  uint32_t node = 0;
  // In the order of CpuCounters::events; scaled by enabled/running time
  // where the kernel multiplexed the group.
  std::array<uint64_t, kMaxCpuCounters> values{};
};

struct CpuCounters {
  // The names of the counters ("cycles", "task-clock", ...), as perf names
  // them; empty: none were recorded.
  std::vector<std::string> events;
  std::vector<NodeCpuCounters> nodes;  // by node id, each node at most once
  bool empty() const { return events.empty() && nodes.empty(); }
};

}  // namespace brickprof
