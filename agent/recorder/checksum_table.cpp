// The program's digests beside the events (see checksum_table.h).
#include "agent/recorder/checksum_table.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent::checksum_table {
namespace {

// 64 entries (~15 KiB) a block: charged whole, so a program that digests
// little pays little, and entries never move once written.
constexpr uint64_t kBlockEntries = 64;
constexpr uint64_t kBlockBytes = kBlockEntries * sizeof(Entry);

struct State {
  std::mutex mutex;
  std::vector<std::unique_ptr<Entry[]>> blocks;
  uint64_t size = 0;
};

State* g_state = new State();  // never destroyed: threads may digest during exit
std::atomic<uint64_t> g_dropped{0};

// Nothing thrown into the program: no memory is a dropped digest.
bool add_block(State& s) {
  std::unique_ptr<Entry[]> block(new (std::nothrow) Entry[kBlockEntries]);
  if (!block) return false;
  try {
    s.blocks.push_back(std::move(block));
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

}  // namespace

uint64_t add(const Entry& entry) {
  State& s = *g_state;
  AgentLock lock(s.mutex);
  if (s.size == s.blocks.size() * kBlockEntries) {
    if (!budget::charge(kBlockBytes)) {
      g_dropped.fetch_add(1, std::memory_order_relaxed);
      return kNotKept;
    }
    if (!add_block(s)) {
      budget::release(kBlockBytes);
      g_dropped.fetch_add(1, std::memory_order_relaxed);
      return kNotKept;
    }
  }
  const uint64_t index = s.size++;
  s.blocks[index / kBlockEntries][index % kBlockEntries] = entry;
  return index;
}

bool get(uint64_t index, Entry* out) {
  State& s = *g_state;
  AgentLock lock(s.mutex);
  if (index >= s.size) return false;
  *out = s.blocks[index / kBlockEntries][index % kBlockEntries];
  return true;
}

uint64_t dropped() { return g_dropped.load(std::memory_order_relaxed); }
void count_dropped() { g_dropped.fetch_add(1, std::memory_order_relaxed); }

void reset_after_fork() {
  // Abandoned, as the parent's event buffers are (thread_buffers.cpp).
  g_state = new State();
  g_dropped.store(0);
}

}  // namespace brickprof::agent::checksum_table
