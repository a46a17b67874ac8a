// The site table (see site_table.h). Sites live in blocks published with
// release stores, so readers need no lock; names live in an arena of
// blocks that never move; an open-addressing index of site ids finds a
// (kind, brick, name) key. Every block and the index are charged to the
// budget before they are allocated: no allocation happens that the budget
// did not accept, so the table's size is what bytes_held() says.
#include "agent/recorder/site_table.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"
#include "trace/model/bricks.h"

namespace brickprof::agent::sites {
namespace {

// Small first blocks: a tiny budget (tests use 64 KiB) must still hold a
// few sites and their names.
constexpr uint32_t kSiteBlock = 256;
constexpr uint32_t kMaxSiteBlocks = 4096;  // a million distinct sites
constexpr size_t kFirstArenaBlock = 4 << 10;
constexpr size_t kArenaBlock = 64 << 10;
constexpr uint32_t kEmpty = UINT32_MAX;

std::atomic<SiteInfo*> g_blocks[kMaxSiteBlocks];
std::atomic<uint32_t> g_count{0};  // written under the lock
std::atomic<uint64_t> g_dropped{0};
std::atomic<uint64_t> g_bytes{0};  // what the table holds, all charged

// Guarded by mutex(): the arena's current block and the index.
char* g_arena = nullptr;
size_t g_arena_left = 0;
size_t g_arena_block = kFirstArenaBlock;  // doubles up to kArenaBlock
uint32_t* g_index = nullptr;              // site ids, kEmpty where free; never site 0
size_t g_index_size = 0;                  // a power of two
std::string* g_capture_name = nullptr;

std::mutex& mutex() {
  static auto* m = new std::mutex();  // built on first use, never destroyed
  return *m;
}
// Built while the library loads (see thread_buffers.cpp: fork and guards).
[[maybe_unused]] const bool kMutexBuiltAtLoad = (mutex(), true);

// Memory the budget accepted first; nullptr (nothing charged) otherwise.
void* charged_alloc(size_t bytes) {
  if (!budget::charge(bytes)) return nullptr;
  void* p = std::malloc(bytes);
  if (!p) {
    budget::release(bytes);
    return nullptr;
  }
  g_bytes.fetch_add(bytes, std::memory_order_relaxed);
  return p;
}

void charged_free(void* p, size_t bytes) {
  std::free(p);
  budget::release(bytes);
  g_bytes.fetch_sub(bytes, std::memory_order_relaxed);
}

uint64_t hash_key(NodeKind kind, int16_t brick_id, std::string_view name) {
  uint64_t h =
      0xcbf29ce484222325ull ^ (static_cast<uint64_t>(kind) << 16) ^ static_cast<uint16_t>(brick_id);
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

bool same_key(const SiteInfo& s, NodeKind kind, int16_t brick_id, std::string_view name) {
  return s.kind == kind && s.brick_id == brick_id && s.name == name;
}

SiteInfo& slot(uint32_t id) {
  return g_blocks[id / kSiteBlock].load(std::memory_order_relaxed)[id % kSiteBlock];
}

// Doubles the index (or makes the first); false if the budget refuses.
bool grow_index() {
  size_t size = g_index_size ? 2 * g_index_size : 256;
  auto* index = static_cast<uint32_t*>(charged_alloc(size * sizeof(uint32_t)));
  if (!index) return false;
  std::memset(index, 0xff, size * sizeof(uint32_t));
  uint32_t n = g_count.load(std::memory_order_relaxed);
  for (uint32_t id = 1; id < n; ++id) {
    const SiteInfo& s = slot(id);
    size_t at = hash_key(s.kind, s.brick_id, s.name) & (size - 1);
    while (index[at] != kEmpty) at = (at + 1) & (size - 1);
    index[at] = id;
  }
  if (g_index) charged_free(g_index, g_index_size * sizeof(uint32_t));
  g_index = index;
  g_index_size = size;
  return true;
}

// A copy of `text` in the arena, or an empty view if the budget refuses.
std::string_view store_name(std::string_view text, bool* ok) {
  *ok = true;
  if (text.empty()) return {};
  if (text.size() > g_arena_left) {
    // A name longer than a quarter block gets a block of its own.
    const bool own = text.size() > g_arena_block / 4;
    size_t bytes = own ? text.size() : g_arena_block;
    char* block = static_cast<char*>(charged_alloc(bytes));
    if (!block) {
      *ok = false;
      return {};
    }
    if (own) {
      std::memcpy(block, text.data(), text.size());
      return {block, text.size()};
    }
    g_arena = block;
    g_arena_left = bytes;
    g_arena_block = std::min(2 * g_arena_block, kArenaBlock);
  }
  char* at = g_arena;
  std::memcpy(at, text.data(), text.size());
  g_arena += text.size();
  g_arena_left -= text.size();
  return {at, text.size()};
}

bool opens_capture(NodeKind kind, std::string_view display) {
  return kind != NodeKind::kLayer && g_capture_name && !g_capture_name->empty() &&
         display == *g_capture_name;
}

// Adds a site; kOther (counted) when it does not fit. A `static_name` (the
// catch-all, canonical brick names, "Layer") is not copied. Caller holds
// the lock.
uint32_t add_locked(const SiteInfo& key, bool static_name) {
  uint32_t id = g_count.load(std::memory_order_relaxed);
  uint32_t block = id / kSiteBlock;
  if (block >= kMaxSiteBlocks) return kOther;
  if (!g_blocks[block].load(std::memory_order_relaxed)) {
    void* memory = charged_alloc(kSiteBlock * sizeof(SiteInfo));
    if (!memory) return kOther;
    g_blocks[block].store(new (memory) SiteInfo[kSiteBlock], std::memory_order_release);
  }
  if (id != kOther && 2 * (id + 1) > g_index_size && !grow_index()) return kOther;
  SiteInfo info = key;
  bool stored = true;
  if (!static_name) info.name = store_name(key.name, &stored);
  if (!stored) return kOther;
  info.opens_capture = opens_capture(info.kind, info.name);
  slot(id) = info;
  if (id != kOther) {
    size_t at = hash_key(info.kind, info.brick_id, info.name) & (g_index_size - 1);
    while (g_index[at] != kEmpty) at = (at + 1) & (g_index_size - 1);
    g_index[at] = id;
  }
  g_count.store(id + 1, std::memory_order_release);
  return id;
}

uint32_t find_or_add_locked(const SiteInfo& key, bool static_name) {
  if (g_count.load(std::memory_order_relaxed) == 0) {
    SiteInfo other;
    other.name = kOtherName;
    add_locked(other, true);
    if (g_count.load(std::memory_order_relaxed) == 0) {  // no room even for the catch-all
      g_dropped.fetch_add(1, std::memory_order_relaxed);
      return kOther;
    }
  }
  if (g_index_size) {
    size_t at = hash_key(key.kind, key.brick_id, key.name) & (g_index_size - 1);
    for (; g_index[at] != kEmpty; at = (at + 1) & (g_index_size - 1))
      if (same_key(slot(g_index[at]), key.kind, key.brick_id, key.name)) return g_index[at];
  }
  uint32_t id = add_locked(key, static_name);
  if (id == kOther) g_dropped.fetch_add(1, std::memory_order_relaxed);
  return id;
}

// Storage only: what a name is, trace/model/bricks.h decides.
uint32_t intern_locked(const ScopeIdentity& identity) {
  SiteInfo key;
  key.kind = identity.kind;
  key.brick_id = identity.brick_id;
  key.category = identity.category;
  key.name = identity.name;
  return find_or_add_locked(key, identity.name_is_static);
}

}  // namespace

uint32_t intern(NodeKind kind, int brick_id, std::string_view name) {
  const ScopeIdentity identity = identify_scope(kind, brick_id, name);
  AgentLock lock(mutex());
  return intern_locked(identity);
}

uint32_t intern_named(std::string_view name, NodeKind default_kind) {
  const ScopeIdentity identity = identify_named(name, default_kind);
  AgentLock lock(mutex());
  return intern_locked(identity);
}

SiteInfo get(uint32_t id) {
  SiteInfo* block = id / kSiteBlock < kMaxSiteBlocks
                        ? g_blocks[id / kSiteBlock].load(std::memory_order_acquire)
                        : nullptr;
  return block && id < g_count.load(std::memory_order_acquire) ? block[id % kSiteBlock]
                                                               : SiteInfo{};
}

uint32_t count() { return g_count.load(std::memory_order_acquire); }
uint64_t dropped_names() { return g_dropped.load(std::memory_order_relaxed); }
uint64_t bytes_held() { return g_bytes.load(std::memory_order_relaxed); }

void set_capture_name(std::string_view name) {
  AgentLock lock(mutex());
  if (!g_capture_name) g_capture_name = new std::string();
  *g_capture_name = std::string(name);
  uint32_t n = g_count.load(std::memory_order_relaxed);
  for (uint32_t id = 0; id < n; ++id) {
    SiteInfo& s = slot(id);
    s.opens_capture = opens_capture(s.kind, s.name);
  }
}

void reset_after_fork() {
  new (&mutex()) std::mutex();
  g_dropped.store(0);
}

}  // namespace brickprof::agent::sites
