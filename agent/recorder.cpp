// Per-thread event buffers and the site table (see recorder.h).
//
// Each thread appends to its own chain of chunks. The owner publishes every
// event with a release store of its write cursor, so the dumper (another
// thread, at exit) can read a consistent prefix while the owner still runs.
// Chunks grow from 8 KiB to 2 MiB and are charged to one global budget
// (BRICKPROF_BUFFER_MB); past it, the thread stops recording and counts what
// it drops.
#include "agent/recorder.h"

#include <brickprof/detail/abi.h>
#include <stddef.h>

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "agent/capture.h"
#include "agent/clock.h"
#include "agent/critical_section.h"
#include "agent/page_pool.h"
#include "analysis/bricks.h"

namespace brickprof::agent {

struct Chunk {
  Chunk* next = nullptr;
  uint32_t capacity = 0;                  // words
  std::atomic<uint32_t> sealed_count{0};  // words used, once the owner moved on
  uint64_t words[1];                      // really `capacity` of them
};

struct ThreadBuffer {
  std::atomic<uint64_t*> cur{nullptr};
  uint64_t* end = nullptr;
  Chunk* head = nullptr;
  Chunk* tail = nullptr;
  uint32_t tid = 0;
  // The thread's name, noted by the thread when it registers and whenever it
  // starts a chunk, so a thread that exits before the dump keeps its name.
  char name[16] = {0};
  std::atomic<bool> truncated{false};
  std::atomic<uint64_t> dropped{0};
  uint32_t depth = 0;
  static constexpr uint32_t kMaxDepth = 128;
  uint32_t stack[kMaxDepth];  // open site ids, for the scope-end hook
};

// The header's inline path writes push and pop records into
// brickprof__thread_buffer (brickprof/detail/abi.h): the layouts must agree.
static_assert(static_cast<uint8_t>(EventType::kPush) == BRICKPROF__RECORD_PUSH);
static_assert(static_cast<uint8_t>(EventType::kPop) == BRICKPROF__RECORD_POP);
static_assert(kEventWords[BRICKPROF__RECORD_PUSH] == BRICKPROF__PUSH_WORDS);
static_assert(kEventWords[BRICKPROF__RECORD_POP] == BRICKPROF__POP_WORDS);
static_assert(offsetof(ThreadBuffer, cur) == offsetof(brickprof__thread_buffer, cur));
static_assert(offsetof(ThreadBuffer, end) == offsetof(brickprof__thread_buffer, end));
static_assert(sizeof(std::atomic<uint64_t*>) == sizeof(uint64_t*));

namespace {

constexpr uint32_t kFirstChunkWords = 1024;  // 8 KiB: cheap for short-lived threads
constexpr uint32_t kMaxChunkWords = (2u << 20) / sizeof(uint64_t) - 4;  // one 2 MiB block
static_assert(sizeof(Chunk) + (kMaxChunkWords - 1) * sizeof(uint64_t) <= page_pool::kBlockBytes,
              "a full-size chunk must fit one huge page");

std::atomic<bool> g_enabled{true};
bool g_clock_is_tsc = false;
std::atomic<uint64_t> g_capacity{256ull << 20};
std::atomic<uint64_t> g_used{0};
std::atomic<uint64_t> g_dropped_unregistered{0};
// Set on every thread's first record (its first chunk, or its first drop):
// the slow path, so the hot path stays as it is.
std::atomic<bool> g_recorded_anything{false};
std::atomic<Recorder::ScopeEndHook> g_scope_end_hook{nullptr};
// BRICKPROF_CAPTURE=scope:NAME: every push and pop comes through here (the
// header's inline path is off), so sites named NAME can open the window.
std::atomic<bool> g_capture_by_scope{false};
std::string& capture_scope_name() {  // guarded by g_sites_mutex; "" when off
  static auto* name = new std::string();
  return *name;
}
// Matched as the trace will name the site: "Rope" and "RoPE" open
// "RopeEmbedding". Layers never do. Caller holds g_sites_mutex.
bool opens_capture(NodeKind kind, std::string_view display) {
  return kind != NodeKind::kLayer && !capture_scope_name().empty() &&
         display == capture_scope_name();
}

std::mutex g_threads_mutex;
// Heap objects built on first use (never freed: the dump at exit needs them),
// because the LD_PRELOAD constructor may run before this file's initialisers.
std::vector<ThreadBuffer*>*& threads_list() {
  static std::vector<ThreadBuffer*>* list = new std::vector<ThreadBuffer*>();
  return list;
}

thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec"))) = nullptr;
// Scopes this thread has open inside its outermost trigger scope (that one
// included); 0 outside. Only counted while capturing by scope.
thread_local uint32_t tls_capture_depth __attribute__((tls_model("initial-exec"))) = 0;
// One bit per level inside the trigger: set when that level's push was not
// recorded (the cap, or the program's switch off), so its pop is not either.
// Levels deeper than this are not recorded (counted as dropped).
constexpr uint32_t kCaptureLevels = 256;
thread_local uint64_t tls_capture_unrecorded[kCaptureLevels / 64] __attribute__((
    tls_model("initial-exec")));

// Site table: blocks published with release so the hot path can read a
// site's kind without a lock.
constexpr uint32_t kSiteBlock = 1024;
constexpr uint32_t kMaxSiteBlocks = 1024;  // a million distinct names
std::atomic<SiteInfo*> g_site_blocks[kMaxSiteBlocks];
uint32_t g_site_count = 0;  // guarded by g_sites_mutex
std::mutex g_sites_mutex;
StringTable& strings_table() {  // guarded by g_sites_mutex
  static StringTable* table = new StringTable();
  return *table;
}
std::unordered_map<std::string, uint32_t>& site_index() {  // guarded by g_sites_mutex
  static auto* index = new std::unordered_map<std::string, uint32_t>();
  return *index;
}

uint32_t current_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

void note_thread_name(ThreadBuffer* tb) { prctl(PR_GET_NAME, tb->name, 0, 0, 0); }

Chunk* allocate_chunk(uint32_t words) {
  size_t bytes = sizeof(Chunk) + (words - 1) * sizeof(uint64_t);
  uint64_t used = g_used.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (used > g_capacity.load(std::memory_order_relaxed)) {
    g_used.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  // Full-size chunks come from the page pool, already populated.
  void* memory = bytes > page_pool::kBlockBytes / 2 ? page_pool::take_block() : std::malloc(bytes);
  if (!memory) {
    g_used.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  Chunk* c = new (memory) Chunk();
  c->capacity = words;
  return c;
}

ThreadBuffer* register_thread() {
  ThreadBuffer* tb = new (std::nothrow) ThreadBuffer();
  if (!tb) return nullptr;
  tb->tid = current_tid();
  note_thread_name(tb);
  {
    AgentLock lock(g_threads_mutex);
    threads_list()->push_back(tb);
  }
  tls_buffer = tb;
  return tb;
}

// Slow path of an append: seal the full chunk and start a bigger one.
__attribute__((noinline)) uint64_t* grow(ThreadBuffer* tb) {
  if (tb->truncated.load(std::memory_order_relaxed)) return nullptr;
  if (!tb->tail) g_recorded_anything.store(true, std::memory_order_relaxed);
  note_thread_name(tb);
  uint32_t words = tb->tail ? std::min(tb->tail->capacity * 2, kMaxChunkWords)
                            : kFirstChunkWords;
  Chunk* c = allocate_chunk(words);
  if (!c) {
    tb->truncated.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  if (tb->tail) {
    // A record never straddles chunks: the tail may end with a few unused words.
    uint64_t* cur = tb->cur.load(std::memory_order_relaxed);
    tb->tail->sealed_count.store(static_cast<uint32_t>(cur - tb->tail->words),
                                 std::memory_order_release);
    tb->tail->next = c;
  } else {
    tb->head = c;
  }
  tb->tail = c;
  tb->end = c->words + c->capacity;
  return c->words;
}

// Reserves room for one record of `words` words in this thread's buffer, or
// nullptr (counted).
inline uint64_t* next_slot(ThreadBuffer*& tb, uint32_t words) {
  tb = tls_buffer;
  if (__builtin_expect(tb == nullptr, 0)) {
    tb = register_thread();
    if (!tb) {
      g_recorded_anything.store(true, std::memory_order_relaxed);
      g_dropped_unregistered.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
  }
  uint64_t* w = tb->cur.load(std::memory_order_relaxed);
  if (__builtin_expect(tb->end - w < static_cast<ptrdiff_t>(words), 0)) {
    w = grow(tb);
    if (!w) {
      tb->dropped.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
  }
  return w;
}

// Appends a record stamped `tsc` whose payload `fill` writes, then publishes
// it. Callers take the timestamp before reserving, so a chunk change (a
// grow) never lands inside the scope a pop closes.
template <typename Fill>
inline bool append(EventType type, uint32_t site, uint64_t tsc, Fill fill) {
  ThreadBuffer* tb;
  uint32_t words = kEventWords[static_cast<uint8_t>(type)];
  uint64_t* w = next_slot(tb, words);
  if (!w) return false;
  w[0] = event_tag(site, type);
  w[1] = tsc;
  fill(w);
  tb->cur.store(w + words, std::memory_order_release);
  return true;
}

inline bool recording() { return g_enabled.load(std::memory_order_relaxed); }

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

uint32_t add_site_locked(const std::string& key, const SiteInfo& info) {
  auto it = site_index().find(key);
  if (it != site_index().end()) return it->second;
  uint32_t id = g_site_count;
  uint32_t block = id / kSiteBlock;
  if (block >= kMaxSiteBlocks) return 0;  // site 0 is the catch-all "(other)"
  SiteInfo* b = g_site_blocks[block].load(std::memory_order_relaxed);
  if (!b) {
    b = new SiteInfo[kSiteBlock];
    g_site_blocks[block].store(b, std::memory_order_release);
  }
  b[id % kSiteBlock] = info;
  ++g_site_count;
  site_index().emplace(key, id);
  return id;
}

uint32_t intern_locked(NodeKind kind, int brick_id, std::string_view name) {
  if (g_site_count == 0) {
    SiteInfo other;
    other.name = strings_table().intern("(other)");
    add_site_locked("\x01other", other);
  }
  SiteInfo info;
  info.kind = kind;
  std::string display(name);
  if (kind == NodeKind::kBrick) {
    if (brick_id < 0 && !name.empty()) brick_id = brick_from_name(name);
    if (brick_id >= 0 && brick_id < kBrickCount) {
      display = std::string(brick_name(brick_id));  // aliases become the canonical name
      info.category = brick_category(brick_id);
    } else {
      brick_id = -1;
      info.category = custom_brick_category(display);
    }
    info.brick_id = static_cast<int16_t>(brick_id);
  } else if (kind == NodeKind::kLayer) {
    display = "Layer";  // the index comes with each push
  } else if (custom_brick_category(display) == Category::kCommunication) {
    info.category = Category::kCommunication;  // an MPI call, a scope "AllReduce"
  }
  info.name = strings_table().intern(display);
  info.opens_capture = opens_capture(kind, display);
  std::string key = std::to_string(static_cast<int>(kind)) + ":" + std::to_string(brick_id) +
                    ":" + display;
  return add_site_locked(key, info);
}

}  // namespace

uint32_t Recorder::intern_site(NodeKind kind, int brick_id, std::string_view name) {
  AgentLock lock(g_sites_mutex);
  return intern_locked(kind, brick_id, name);
}

uint32_t Recorder::intern_named(std::string_view name, NodeKind default_kind) {
  AgentLock lock(g_sites_mutex);
  if (layer_from_name(name)) return intern_locked(NodeKind::kLayer, -1, name);
  int brick = brick_from_name(name);
  if (brick >= 0) return intern_locked(NodeKind::kBrick, brick, "");
  return intern_locked(default_kind, -1, name);
}

uint32_t Recorder::intern_api_name(std::string_view name) {
  AgentLock lock(g_sites_mutex);
  return intern_locked(NodeKind::kScope, -1, name);
}

SiteInfo Recorder::site(uint32_t id) {
  SiteInfo* block = g_site_blocks[id / kSiteBlock].load(std::memory_order_acquire);
  return block ? block[id % kSiteBlock] : SiteInfo{};
}

std::string Recorder::name(StringId id) {
  AgentLock lock(g_sites_mutex);
  return std::string(strings_table().view(id));
}

namespace {

bool push_record(uint32_t site, uint64_t arg) {
  if (!recording()) return false;
  // Stamped last, after any chunk change: the scope starts when we return.
  constexpr uint32_t kWords = kEventWords[static_cast<uint8_t>(EventType::kPush)];
  ThreadBuffer* tb;
  uint64_t* w = next_slot(tb, kWords);
  if (!w) return false;
  w[0] = event_tag(site, EventType::kPush);
  w[2] = arg;
  w[1] = Clock::ticks();
  tb->cur.store(w + kWords, std::memory_order_release);
  // Only the scope-end hook needs to know what is open (and while it is
  // set, the header's inline path is off, so every push comes here).
  if (__builtin_expect(g_scope_end_hook.load(std::memory_order_relaxed) != nullptr, 0)) {
    if (tb->depth < ThreadBuffer::kMaxDepth) tb->stack[tb->depth] = site;
    ++tb->depth;
  }
  return true;
}

// `closes_recorded`: the caller knows the push was recorded, so the scope
// is closed even if recording stopped since (as the header's inline pop).
bool pop_record(bool closes_recorded = false) {
  if (!closes_recorded && !recording()) return false;
  Recorder::ScopeEndHook hook = g_scope_end_hook.load(std::memory_order_relaxed);
  if (__builtin_expect(hook != nullptr, 0)) {
    ThreadBuffer* current = tls_buffer;
    if (current && current->depth > 0) {
      if (current->depth <= ThreadBuffer::kMaxDepth)
        hook(Recorder::site(current->stack[current->depth - 1]).kind);
      --current->depth;
    }
  }
  return append(EventType::kPop, 0, Clock::ticks(), [](uint64_t*) {});
}

// Capture by scope: a thread's outermost scope named like the trigger
// opens the window before its push is recorded, and its pop closes it
// after. Inside, every push counts and asks for its pop, recorded or not:
// the C++ scope guard pops what push() accepted while the C macros and NVTX
// pop anyway, and the two must agree on the depth.
void note_unrecorded(uint32_t level, bool unrecorded) {
  uint64_t bit = 1ull << (level % 64);
  uint64_t& word = tls_capture_unrecorded[level / 64];
  word = unrecorded ? word | bit : word & ~bit;
}

bool was_recorded(uint32_t level) {
  return level < kCaptureLevels && !(tls_capture_unrecorded[level / 64] >> (level % 64) & 1);
}

bool push_capturing_by_scope(uint32_t site, uint64_t arg) {
  uint32_t depth = tls_capture_depth;
  if (depth == 0) {
    if (!Recorder::site(site).opens_capture) return push_record(site, arg);
    capture::enter_scope();
    if (push_record(site, arg)) {
      tls_capture_depth = 1;
      return true;
    }
    capture::leave_scope();  // not recorded: no window for it
    return false;
  }
  if (depth < kCaptureLevels) {
    note_unrecorded(depth, !push_record(site, arg));
  } else if (ThreadBuffer* tb = tls_buffer) {
    tb->dropped.fetch_add(1, std::memory_order_relaxed);  // too deep to track: counted
  }
  tls_capture_depth = depth + 1;
  return true;
}

bool pop_capturing_by_scope() {
  uint32_t depth = tls_capture_depth;
  if (depth == 0) return pop_record();
  tls_capture_depth = --depth;
  bool recorded = was_recorded(depth) && pop_record(/*closes_recorded=*/true);
  if (depth == 0) capture::leave_scope();
  return recorded;
}

}  // namespace

bool Recorder::push(uint32_t site, uint64_t arg) {
  if (__builtin_expect(g_capture_by_scope.load(std::memory_order_relaxed), 0))
    return push_capturing_by_scope(site, arg);
  return push_record(site, arg);
}

bool Recorder::pop() {
  if (__builtin_expect(g_capture_by_scope.load(std::memory_order_relaxed), 0))
    return pop_capturing_by_scope();
  return pop_record();
}

void Recorder::work(double flops, double bytes) {
  if (!recording()) return;
  append(EventType::kWork, 0, Clock::ticks(), [&](uint64_t* w) {
    w[2] = bits_of(flops);
    w[3] = bits_of(bytes);
  });
}

void Recorder::cuda_api(uint64_t enter_tsc, uint64_t exit_tsc, uint32_t name_site,
                        uint64_t correlation) {
  if (!recording()) return;
  append(EventType::kCudaApi, name_site, enter_tsc, [&](uint64_t* w) {
    w[2] = correlation;
    w[3] = exit_tsc;
  });
}

void Recorder::graph_node(uint64_t graph_node_id) {
  if (!recording()) return;
  append(EventType::kGraphNode, 0, Clock::ticks(), [&](uint64_t* w) { w[2] = graph_node_id; });
}

void Recorder::mark(uint32_t site) {
  if (!recording()) return;
  append(EventType::kMark, site, Clock::ticks(), [](uint64_t*) {});
}

void Recorder::range_start(uint32_t site, uint64_t range_id) {
  if (!recording()) return;
  append(EventType::kRangeStart, site, Clock::ticks(), [&](uint64_t* w) { w[2] = range_id; });
}

void Recorder::range_end(uint64_t range_id) {
  if (!recording()) return;
  append(EventType::kRangeEnd, 0, Clock::ticks(), [&](uint64_t* w) { w[2] = range_id; });
}

namespace {
volatile uint32_t* g_fast_state_word = nullptr;  // in the API table, once bound

void refresh_fast_state() {
  if (!g_fast_state_word) return;
  uint32_t state = BRICKPROF__FAST_CALL;
  if (g_capture_by_scope.load(std::memory_order_relaxed))
    state = BRICKPROF__FAST_CALL;  // even while off: a trigger push must get here
  else if (!g_enabled.load(std::memory_order_relaxed))
    state = BRICKPROF__FAST_OFF;
  else if (g_clock_is_tsc && g_scope_end_hook.load(std::memory_order_relaxed) == nullptr)
    state = BRICKPROF__FAST_INLINE;
  __atomic_store_n(g_fast_state_word, state, __ATOMIC_RELAXED);
}
}  // namespace

void Recorder::set_scope_end_hook(ScopeEndHook hook) {
  g_scope_end_hook.store(hook);
  refresh_fast_state();
}
void Recorder::set_enabled(bool on) {
  g_enabled.store(on, std::memory_order_relaxed);
  refresh_fast_state();
}
void Recorder::bind_fast_state(volatile uint32_t* word) {
  g_fast_state_word = word;
  refresh_fast_state();
}
void Recorder::set_clock_is_tsc(bool tsc) {
  g_clock_is_tsc = tsc;
  refresh_fast_state();
}
void* Recorder::thread_buffer() {
  ThreadBuffer* tb = tls_buffer;
  if (!tb) tb = register_thread();
  return tb;
}
bool Recorder::enabled() { return recording(); }

void Recorder::capture_by_scope(std::string_view name) {
  {
    AgentLock lock(g_sites_mutex);
    capture_scope_name() = std::string(name);
    for (uint32_t id = 0; id < g_site_count; ++id) {
      SiteInfo& info = g_site_blocks[id / kSiteBlock].load()[id % kSiteBlock];
      info.opens_capture = opens_capture(info.kind, strings_table().view(info.name));
    }
  }
  g_capture_by_scope.store(!name.empty());
  refresh_fast_state();
}

bool Recorder::capturing_by_scope() { return g_capture_by_scope.load(std::memory_order_relaxed); }
void Recorder::set_capacity(uint64_t bytes) { g_capacity.store(bytes); }

std::vector<Recorder::ThreadEvents> Recorder::snapshot() {
  std::vector<ThreadEvents> out;
  AgentLock lock(g_threads_mutex);
  for (ThreadBuffer* tb : *threads_list()) {
    ThreadEvents te;
    te.tid = tb->tid;
    te.name.assign(tb->name, strnlen(tb->name, sizeof tb->name));
    te.truncated = tb->truncated.load(std::memory_order_relaxed);
    uint64_t* cur = tb->cur.load(std::memory_order_acquire);
    for (Chunk* c = tb->head; c; c = c->next) {
      // The chunk holding the cursor is the live one; earlier ones are sealed.
      bool live = cur >= c->words && cur <= c->words + c->capacity;
      uint32_t n = live ? static_cast<uint32_t>(cur - c->words)
                        : c->sealed_count.load(std::memory_order_acquire);
      te.chunks.push_back(c->words);
      te.counts.push_back(n);
      if (live) break;
    }
    out.push_back(std::move(te));
  }
  return out;
}

uint64_t Recorder::dropped_events() {
  uint64_t total = g_dropped_unregistered.load(std::memory_order_relaxed);
  AgentLock lock(g_threads_mutex);
  for (ThreadBuffer* tb : *threads_list()) total += tb->dropped.load(std::memory_order_relaxed);
  return total;
}

bool Recorder::recorded_anything() { return g_recorded_anything.load(std::memory_order_relaxed); }

void Recorder::reset_after_fork() {
  // Only the forking thread survives; the parent's events are not ours to
  // report. The old buffers are abandoned (the child may exec soon anyway).
  threads_list() = new std::vector<ThreadBuffer*>();
  new (&g_threads_mutex) std::mutex();  // another thread may have held it at fork
  new (&g_sites_mutex) std::mutex();
  g_used.store(0);
  g_dropped_unregistered.store(0);
  g_recorded_anything.store(false);
  // The header caches this thread's buffer: make it look full so the next
  // push asks the agent again and gets a fresh one.
  if (ThreadBuffer* old = tls_buffer) old->end = old->cur.load(std::memory_order_relaxed);
  tls_buffer = nullptr;
  page_pool::reset_after_fork();
  capture::reset_after_fork(tls_capture_depth > 0);
}

}  // namespace brickprof::agent
