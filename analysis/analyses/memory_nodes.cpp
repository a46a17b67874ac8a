// Per-node memory figures (see memory_nodes.h): subtrees as preorder
// ranges, so "inside the node" is two binary searches over each account's
// events sorted by position; the peak is a range maximum.
#include "analysis/analyses/memory_nodes.h"

#include <algorithm>
#include <numeric>

#include "trace/model/queries.h"

namespace brickprof {

NodeMemoryIndex::NodeMemoryIndex(const Trace& trace, const MemoryLedger& ledger)
    : first_(trace.nodes.size()), past_(trace.nodes.size()) {
  // Preorder numbering without recursion: each node's subtree is the
  // range of positions [first, past).
  const ChildIndex children(trace);
  uint32_t next = 0;
  std::vector<std::pair<uint32_t, size_t>> stack;  // (node, next child)
  for (uint32_t root : children.roots()) {
    first_[root] = next++;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [node, child] = stack.back();
      const auto kids = children.children(node);
      if (child == kids.size()) {
        past_[node] = next;
        stack.pop_back();
        continue;
      }
      const uint32_t kid = kids[child++];
      first_[kid] = next++;
      stack.push_back({kid, 0});
    }
  }

  accounts_.resize(ledger.accounts.size());
  std::vector<std::vector<uint32_t>> inside(ledger.accounts.size());  // event ids with a scope
  for (uint32_t id = 0; id < trace.memory.size(); ++id) {
    const ResolvedEvent& r = ledger.events[id];
    const uint32_t scope = trace.memory[id].scope;
    if (r.account == kNoAccount || scope >= trace.nodes.size()) continue;
    if (trace.memory[id].op == MemoryOp::kFree && r.pair == kNoEvent) continue;
    inside[r.account].push_back(id);
  }
  for (size_t a = 0; a < accounts_.size(); ++a) {
    std::vector<uint32_t>& ids = inside[a];
    const auto position = [&](uint32_t id) { return first_[trace.memory[id].scope]; };
    std::stable_sort(ids.begin(), ids.end(),
                     [&](uint32_t x, uint32_t y) { return position(x) < position(y); });
    Inside& in = accounts_[a].inside;
    in.allocated.assign(ids.size() + 1, 0);
    in.allocations.assign(ids.size() + 1, 0);
    in.freed.assign(ids.size() + 1, 0);
    in.frees.assign(ids.size() + 1, 0);
    for (size_t i = 0; i < ids.size(); ++i) {
      const bool free = trace.memory[ids[i]].op == MemoryOp::kFree;
      const uint64_t bytes = ledger.events[ids[i]].bytes;
      in.position.push_back(position(ids[i]));
      touched_positions_.push_back(position(ids[i]));
      in.allocated[i + 1] = in.allocated[i] + (free ? 0 : bytes);
      in.allocations[i + 1] = in.allocations[i] + (free ? 0 : 1);
      in.freed[i + 1] = in.freed[i] + (free ? bytes : 0);
      in.frees[i + 1] = in.frees[i] + (free ? 1 : 0);
    }
    const std::vector<uint64_t>& live = ledger.accounts[a].live;
    std::vector<uint64_t>& tree = accounts_[a].max_tree;
    tree.assign(2 * live.size(), 0);
    std::copy(live.begin(), live.end(), tree.begin() + static_cast<ptrdiff_t>(live.size()));
    for (size_t i = live.size(); i-- > 1;) tree[i] = std::max(tree[2 * i], tree[2 * i + 1]);
  }
  std::sort(touched_positions_.begin(), touched_positions_.end());
}

uint64_t NodeMemoryIndex::live_max(const Account& a, size_t lo, size_t hi) const {
  const size_t n = a.max_tree.size() / 2;
  uint64_t best = 0;
  for (lo += n, hi += n; lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) best = std::max(best, a.max_tree[lo++]);
    if (hi & 1) best = std::max(best, a.max_tree[--hi]);
  }
  return best;
}

NodeMemory NodeMemoryIndex::of(const Trace& trace, const MemoryLedger& ledger, uint32_t node,
                               uint32_t account) const {
  NodeMemory m;
  if (node >= first_.size() || account >= accounts_.size()) return m;
  const Node& n = trace.nodes[node];
  const Account& a = accounts_[account];
  const Inside& in = a.inside;
  const size_t lo = static_cast<size_t>(
      std::lower_bound(in.position.begin(), in.position.end(), first_[node]) - in.position.begin());
  const size_t hi = static_cast<size_t>(
      std::lower_bound(in.position.begin(), in.position.end(), past_[node]) - in.position.begin());
  m.allocated = in.allocated[hi] - in.allocated[lo];
  m.allocations = in.allocations[hi] - in.allocations[lo];
  m.freed = in.freed[hi] - in.freed[lo];
  m.frees = in.frees[hi] - in.frees[lo];

  const AccountSeries& s = ledger.accounts[account];
  const auto time_of = [&](uint32_t e) { return trace.memory[e].time_ns; };
  const size_t from = static_cast<size_t>(
      std::lower_bound(s.events.begin(), s.events.end(), n.start_ns,
                       [&](uint32_t e, int64_t t) { return time_of(e) < t; }) -
      s.events.begin());
  const size_t to = static_cast<size_t>(
      std::upper_bound(s.events.begin(), s.events.end(), n.end_ns,
                       [&](int64_t t, uint32_t e) { return t < time_of(e); }) -
      s.events.begin());
  m.live_at_start = from == 0 ? 0 : s.live[from - 1];
  m.live_at_end = to == 0 ? 0 : s.live[to - 1];
  m.peak = std::max(m.live_at_start, from < to ? live_max(a, from, to) : 0);
  return m;
}

bool NodeMemoryIndex::touched(uint32_t node) const {
  if (node >= first_.size()) return false;
  auto it = std::lower_bound(touched_positions_.begin(), touched_positions_.end(), first_[node]);
  return it != touched_positions_.end() && *it < past_[node];
}

}  // namespace brickprof
