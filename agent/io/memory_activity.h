// What CUPTI's memory activity records (CUPTI_ACTIVITY_KIND_MEMORY2 and
// _MEMORY_POOL) add to the trace's memory events: only what the API
// callbacks cannot see (agent/README.md, "What only CUPTI's activity
// records see"). A record of a call the callbacks recorded adds nothing, so
// no byte is counted twice; from the rest come
// - a stream-ordered pool's reserve (source pool_reserve): each record that
//   states the pool's size (an allocation or free from the pool, its
//   creation, trim or destruction) where the size changed, as the pool's
//   whole reserve then;
// - a CUDA graph's memory-allocation nodes (source graph): allocation and
//   release records whose correlation id is that of a recorded call that is
//   no memory call (cuGraphLaunch), under that call's scope, thread and
//   Python frame, as the graph's kernels are.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/memory.h"

namespace brickprof::agent {

class MemoryEvents;

// One memory or memory-pool record, as translate() keeps it.
struct MemoryActivity {
  enum class Kind : uint8_t { kAlloc, kRelease, kPoolCreated, kPoolDestroyed, kPoolTrimmed };
  Kind kind = Kind::kAlloc;
  bool pool_size_known = false;  // a local pool's record: `pool_size` says its reserve
  uint32_t correlation = 0;
  uint32_t device = 0;
  int64_t time_ns = 0;  // CUPTI's timestamp: the agent's clock (its timestamp callback)
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint64_t pool = 0;       // the pool's base address; 0: none
  uint64_t pool_size = 0;  // the pool's reserve after the operation
};

class MemoryActivityEvents {
 public:
  // `records` may be null (no GPU source); kept as they are.
  explicit MemoryActivityEvents(const std::vector<MemoryActivity>* records);

  // A recorded CUDA call that is no memory call (the exit write's pass 1
  // reads each thread's).
  void launch(uint64_t correlation, uint32_t scope, uint32_t tid, uint32_t python_stack);
  // Into `out`, after every thread was read. The reserve events go on
  // `reserve_thread` (the process's first thread) outside every scope: a
  // reserve is the pool's, and outlives the allocation that grew it.
  void finish(MemoryEvents& out, uint32_t reserve_thread) const;

 private:
  struct Launch {
    uint32_t scope;
    uint32_t thread;
    uint32_t python_stack;
    bool seen = false;
  };
  const std::vector<MemoryActivity>* records_;
  std::vector<std::pair<uint64_t, uint32_t>> by_correlation_;  // (correlation, record)
  std::vector<Launch> launched_;                               // per record
};

}  // namespace brickprof::agent
