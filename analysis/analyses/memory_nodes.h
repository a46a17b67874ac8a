// Memory figures of every layer, brick and scope, per account: what was
// allocated and freed inside it, what was live when it started and ended,
// and the account's high-water mark while it ran.
//
// "Inside" is by attribution: the events whose scope is the node or one of
// its descendants (the agent attributes an event to the innermost scope
// open on the calling thread, so this is the node's own time on its
// thread). Live and peak are the account's, every thread's events counted:
// live at start is after every event before the node's start, live at end
// after every event up to its end, the peak the highest of live at start
// and live after each event in [start, end].
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/memory_ledger.h"
#include "trace/model/trace.h"

namespace brickprof {

struct NodeMemory {
  uint64_t allocated = 0, allocations = 0;  // inside the node
  uint64_t freed = 0, frees = 0;            // inside the node (of allocations made anywhere)
  uint64_t live_at_start = 0, live_at_end = 0;
  uint64_t peak = 0;  // while it ran
};

// Built once, O(n log n) in nodes and events; each query O(log n). It
// keeps no reference: each query names the trace and ledger it was built of.
class NodeMemoryIndex {
 public:
  NodeMemoryIndex() = default;
  NodeMemoryIndex(const Trace& trace, const MemoryLedger& ledger);
  NodeMemory of(const Trace& trace, const MemoryLedger& ledger, uint32_t node,
                uint32_t account) const;
  // Whether anything was allocated or freed inside the node, in any account.
  bool touched(uint32_t node) const;
  size_t nodes() const { return first_.size(); }
  // The node's subtree: preorder positions [first, past); a scope of an
  // event is inside `node` when its first lies in that range.
  uint32_t first(uint32_t node) const { return first_[node]; }
  uint32_t past(uint32_t node) const { return past_[node]; }

 private:
  struct Inside {  // an account's events by their scope's preorder position
    std::vector<uint32_t> position;
    std::vector<uint64_t> allocated, allocations, freed, frees;  // prefix sums, size + 1
  };
  struct Account {
    Inside inside;
    std::vector<uint64_t> max_tree;  // a max segment tree over the live series (leaves at n..2n)
  };
  uint64_t live_max(const Account& a, size_t lo, size_t hi) const;  // over [lo, hi)

  std::vector<uint32_t> first_, past_;  // each node's subtree: preorder [first, past)
  std::vector<Account> accounts_;
  std::vector<uint32_t> touched_positions_;  // sorted, any account
};

}  // namespace brickprof
