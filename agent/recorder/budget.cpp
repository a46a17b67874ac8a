// The memory budget (see budget.h).
#include "agent/recorder/budget.h"

#include <algorithm>
#include <atomic>

namespace brickprof::agent::budget {
namespace {

std::atomic<uint64_t> g_capacity{256ull << 20};
std::atomic<uint64_t> g_used{0};

bool charge_within(uint64_t bytes, uint64_t limit) {
  uint64_t used = g_used.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (used <= limit) return true;
  g_used.fetch_sub(bytes, std::memory_order_relaxed);
  return false;
}

}  // namespace

uint64_t write_reserve() {
  const uint64_t capacity = g_capacity.load(std::memory_order_relaxed);
  return std::min<uint64_t>(capacity / 4, std::clamp<uint64_t>(capacity / 16, 64 << 10, 16 << 20));
}

bool charge(uint64_t bytes) {
  return charge_within(bytes, g_capacity.load(std::memory_order_relaxed) - write_reserve());
}

bool charge_for_write(uint64_t bytes) {
  return charge_within(bytes, g_capacity.load(std::memory_order_relaxed));
}

void release(uint64_t bytes) { g_used.fetch_sub(bytes, std::memory_order_relaxed); }

void set_capacity(uint64_t bytes) { g_capacity.store(bytes); }
uint64_t capacity() { return g_capacity.load(std::memory_order_relaxed); }
uint64_t used() { return g_used.load(std::memory_order_relaxed); }

void reset_after_fork(uint64_t still_held) { g_used.store(still_held); }

}  // namespace brickprof::agent::budget
