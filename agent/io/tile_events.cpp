// The trace's tiles (see tile_events.h).
#include "agent/io/tile_events.h"

#include <algorithm>
#include <string>

#include "agent/recorder/budget.h"

namespace brickprof::agent {
namespace {

// An entry and its slot in the index (a hash node of two words and a link).
constexpr uint64_t kEntryBytes = sizeof(TileStats) + 4 * sizeof(uint64_t);

// Node ids and thread ids fit 32 bits; levels 2 more: the thread's id is
// folded in by hash, a collision only costs a second entry lookup below.
uint64_t key(const TileStats& s) {
  return (static_cast<uint64_t>(s.node) << 32 | static_cast<uint64_t>(s.level) << 30) ^
         (static_cast<uint64_t>(s.thread) * 0x9E3779B97F4A7C15ull >> 34);
}

}  // namespace

TileEvents::~TileEvents() { budget::release(charged_); }

void TileEvents::add(const TileStats& s) {
  if (s.node == kNoNode) {
    outside_nodes_ += s.count;
    return;
  }
  uint64_t k = key(s);
  // Probe on past an entry of another thread or level that hashed alike.
  for (auto it = index_.find(k); it != index_.end(); it = index_.find(++k)) {
    TileStats& e = entries_[it->second];
    if (e.node == s.node && e.thread == s.thread && e.level == s.level) {
      e.count += s.count;
      e.total_ns += s.total_ns;
      e.elements += s.elements;
      e.bytes += s.bytes;
      return;
    }
  }
  if (!budget::charge_for_write(kEntryBytes)) {
    over_budget_ += s.count;
    return;
  }
  charged_ += kEntryBytes;
  index_.emplace(k, static_cast<uint32_t>(entries_.size()));
  entries_.push_back(s);
}

void TileEvents::fill(Trace& trace) const {
  trace.tiles = entries_;
  std::sort(trace.tiles.begin(), trace.tiles.end(), [](const TileStats& a, const TileStats& b) {
    if (a.node != b.node) return a.node < b.node;
    if (a.thread != b.thread) return a.thread < b.thread;
    return a.level < b.level;
  });
  if (outside_nodes_ > 0)
    trace.diagnostics.warnings.push_back(std::to_string(outside_nodes_) +
                                         " tiles left out: they ended outside every scope");
  if (over_budget_ > 0)
    trace.diagnostics.warnings.push_back(std::to_string(over_budget_) +
                                         " tiles left out: they did not fit BRICKPROF_BUFFER_MB");
}

}  // namespace brickprof::agent
