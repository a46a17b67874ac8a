// The recorder's hot path and its switches (see recorder.h).
//
// Each thread appends to its own chain of chunks (thread_buffers.h). The
// owner publishes every event with a release store of its write cursor, so
// the dumper (another thread, at exit) can read a consistent prefix while
// the owner still runs. Chunks grow from 8 KiB to 2 MiB and are charged to
// the one budget (BRICKPROF_BUFFER_MB); past it, the thread stops recording
// and counts what it drops.
#include "agent/recorder/recorder.h"

#include <brickprof/brickprof.h>
#include <stddef.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "agent/capture/capture.h"
#include "agent/capture/scope_trigger.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/checksum_table.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/cpu_counters.h"
#include "agent/recorder/page_pool.h"

namespace brickprof::agent {

using thread_buffers::Chunk;
using thread_buffers::ThreadBuffer;
using thread_buffers::tls_buffer;

// The header's inline path writes push and pop records into
// brickprof__thread_buffer (brickprof/detail/abi.h): the layouts must agree.
static_assert(static_cast<uint8_t>(EventType::kPush) == BRICKPROF__RECORD_PUSH);
static_assert(static_cast<uint8_t>(EventType::kPop) == BRICKPROF__RECORD_POP);
static_assert(kEventWords[BRICKPROF__RECORD_PUSH] == BRICKPROF__PUSH_WORDS);
static_assert(kEventWords[BRICKPROF__RECORD_POP] == BRICKPROF__POP_WORDS);
static_assert(offsetof(ThreadBuffer, cur) == offsetof(brickprof__thread_buffer, cur));
static_assert(offsetof(ThreadBuffer, end) == offsetof(brickprof__thread_buffer, end));
static_assert(sizeof(std::atomic<uint64_t*>) == sizeof(uint64_t*));
static_assert(static_cast<uint8_t>(EventType::kTile) == BRICKPROF__RECORD_TILE);
static_assert(kEventWords[BRICKPROF__RECORD_TILE] == BRICKPROF__TILE_WORDS);
static_assert(BRICKPROF_TILE_LEVELS == kTileLevels);
static_assert(kEventWords[static_cast<uint8_t>(EventType::kCpuCounters)] == 2 + kMaxCpuCounters);

namespace {

constexpr uint32_t kFirstChunkWords = 1024;  // 8 KiB: cheap for short-lived threads
constexpr uint32_t kMaxChunkWords = (2u << 20) / sizeof(uint64_t) - 4;  // one 2 MiB block
static_assert(sizeof(Chunk) + (kMaxChunkWords - 1) * sizeof(uint64_t) <= page_pool::kBlockBytes,
              "a full-size chunk must fit one huge page");

std::atomic<bool> g_enabled{true};
bool g_clock_is_tsc = false;
std::atomic<uint64_t> g_dropped_unregistered{0};
std::atomic<uint64_t> g_ignored_api_calls{0};  // a program's mistake: rare, one counter will do
// Set on every thread's first record (its first chunk, or its first drop):
// the slow path, so the hot path stays as it is.
std::atomic<bool> g_recorded_anything{false};
std::atomic<Recorder::ScopeEndHook> g_scope_end_hook{nullptr};
// BRICKPROF_CAPTURE=scope:NAME: every push and pop comes through here (the
// header's inline path is off) and goes on to the trigger's bookkeeping
// (capture/scope_trigger.h), so sites named NAME can open the window.
std::atomic<bool> g_capture_by_scope{false};

// Slow path of an append: seal the full chunk and start a bigger one.
__attribute__((noinline)) uint64_t* grow(ThreadBuffer* tb) {
  if (tb->truncated.load(std::memory_order_relaxed)) return nullptr;
  if (!tb->tail) g_recorded_anything.store(true, std::memory_order_relaxed);
  thread_buffers::note_name(tb);
  uint32_t words = tb->tail ? std::min(tb->tail->capacity * 2, kMaxChunkWords)
                            : kFirstChunkWords;
  Chunk* c = thread_buffers::allocate_chunk(words);
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
    tb = thread_buffers::register_current();
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

}  // namespace

uint32_t Recorder::intern_site(NodeKind kind, int brick_id, std::string_view name) {
  return sites::intern(kind, brick_id, name);
}

uint32_t Recorder::intern_named(std::string_view name, NodeKind default_kind) {
  return sites::intern_named(name, default_kind);
}

uint32_t Recorder::intern_api_name(std::string_view name) {
  return sites::intern(NodeKind::kScope, -1, name);
}

SiteInfo Recorder::site(uint32_t id) { return sites::get(id); }

namespace {

// What the scope-end hook needs: the open sites, in a stack made on the
// thread's first push under a hook (charged; freed when the thread exits).
__attribute__((noinline)) void note_open_site(ThreadBuffer* tb, uint32_t site) {
  if (!tb->stack && budget::charge(ThreadBuffer::kMaxDepth * sizeof(uint32_t))) {
    tb->stack = static_cast<uint32_t*>(std::malloc(ThreadBuffer::kMaxDepth * sizeof(uint32_t)));
    if (!tb->stack) budget::release(ThreadBuffer::kMaxDepth * sizeof(uint32_t));
  }
  if (tb->depth < ThreadBuffer::kMaxDepth && tb->stack) tb->stack[tb->depth] = site;
  ++tb->depth;
}

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
  if (__builtin_expect(cpu_counters::active(), 0)) cpu_counters::scope_opened();
  // Only the scope-end hook needs to know what is open (and while it is
  // set, the header's inline path is off, so every push comes here).
  if (__builtin_expect(g_scope_end_hook.load(std::memory_order_relaxed) != nullptr, 0))
    note_open_site(tb, site);
  return true;
}

// Before a pop: what the thread's CPU counters counted in the scope it closes.
__attribute__((noinline)) void write_cpu_counters() {
  uint64_t delta[kMaxCpuCounters];
  if (!cpu_counters::scope_closing(delta)) return;
  append(EventType::kCpuCounters, 0, Clock::ticks(),
         [&](uint64_t* w) { std::memcpy(w + 2, delta, sizeof delta); });
}

// `closes_recorded`: the caller knows the push was recorded, so the scope
// is closed even if recording stopped since (as the header's inline pop).
bool pop_record(bool closes_recorded = false) {
  if (!closes_recorded && !recording()) return false;
  Recorder::ScopeEndHook hook = g_scope_end_hook.load(std::memory_order_relaxed);
  if (__builtin_expect(hook != nullptr, 0)) {
    ThreadBuffer* current = tls_buffer;
    if (current && current->depth > 0) {
      if (current->depth <= ThreadBuffer::kMaxDepth && current->stack)
        hook(Recorder::site(current->stack[current->depth - 1]).kind);
      --current->depth;
    }
  }
  if (__builtin_expect(cpu_counters::active(), 0)) write_cpu_counters();
  return append(EventType::kPop, 0, Clock::ticks(), [](uint64_t*) {});
}

}  // namespace

bool Recorder::push(uint32_t site, uint64_t arg) {
  if (__builtin_expect(g_capture_by_scope.load(std::memory_order_relaxed), 0))
    return capture::push_in_trigger(site, arg);
  return push_record(site, arg);
}

bool Recorder::pop() {
  if (__builtin_expect(g_capture_by_scope.load(std::memory_order_relaxed), 0))
    return capture::pop_in_trigger();
  return pop_record();
}

bool Recorder::record_push(uint32_t site, uint64_t arg) { return push_record(site, arg); }
bool Recorder::record_pop(bool closes_recorded) { return pop_record(closes_recorded); }
void Recorder::count_dropped() {
  if (ThreadBuffer* tb = tls_buffer) tb->dropped.fetch_add(1, std::memory_order_relaxed);
}

void Recorder::work(double flops, double bytes) {
  if (!recording()) return;
  append(EventType::kWork, 0, Clock::ticks(), [&](uint64_t* w) {
    w[2] = bits_of(flops);
    w[3] = bits_of(bytes);
  });
}

void Recorder::cuda_api(uint64_t enter_tsc, uint64_t exit_tsc, uint32_t name_site,
                        uint32_t correlation, uint32_t python_stack) {
  if (!recording()) return;
  append(EventType::kCudaApi, name_site, enter_tsc, [&](uint64_t* w) {
    w[2] = correlation | static_cast<uint64_t>(python_stack) << 32;
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

void Recorder::memory(const MemoryRecord& r) {
  if (!recording()) return;
  append(EventType::kMemory, r.name_site, r.tsc != 0 ? r.tsc : Clock::ticks(), [&](uint64_t* w) {
    w[2] = r.address;
    w[3] = r.bytes;
    w[4] = pack_memory(r);
    w[5] = r.stream;
    w[6] = r.pool;
  });
}

void Recorder::shapes(uint32_t signature_site) {
  if (!recording()) return;
  append(EventType::kShapes, signature_site, Clock::ticks(), [](uint64_t*) {});
}

void Recorder::checksum(uint32_t name_site, ElementType type, uint64_t address,
                        const Digest& digest, ChecksumSource source) {
  if (!recording()) return;
  const uint64_t tsc = Clock::ticks();
  const uint64_t index = checksum_table::add({digest, type, address, source});
  if (index == checksum_table::kNotKept) return;
  // A record that does not fit leaves its entry unread: counted as a digest left out.
  if (!append(EventType::kChecksum, name_site, tsc, [&](uint64_t* w) { w[2] = index; }))
    checksum_table::count_dropped();
}
void Recorder::counter(uint32_t name_site, double value) {
  if (!recording()) return;
  append(EventType::kCounter, name_site, Clock::ticks(), [&](uint64_t* w) {
    w[2] = bits_of(value);
    w[3] = static_cast<uint64_t>(CounterKind::kValue);
  });
}

void Recorder::tokens(uint64_t tokens) {
  if (!recording()) return;
  append(EventType::kCounter, 0, Clock::ticks(), [&](uint64_t* w) {
    w[2] = bits_of(static_cast<double>(tokens));
    w[3] = static_cast<uint64_t>(CounterKind::kTokens);
  });
}

void Recorder::tile(uint32_t level, uint64_t ticks, uint64_t elements, uint64_t bytes) {
  if (!recording()) return;
  constexpr uint32_t kWords = kEventWords[static_cast<uint8_t>(EventType::kTile)];
  ThreadBuffer* tb = tls_buffer;
  uint64_t* slot = nullptr;
  if (tb) {
    uint64_t* r = tb->cur.load(std::memory_order_relaxed) - kWords;
    if (r == tb->last_tile && r[0] == event_tag(0, EventType::kTile)) slot = r;
  }
  if (!slot) {
    uint64_t* w = next_slot(tb, kWords);
    if (!w) return;
    w[0] = event_tag(0, EventType::kTile);
    w[1] = Clock::ticks();
    std::fill(w + 2, w + kWords, 0);
    tb->last_tile = w;
    slot = w;
    // Published with its first tile below: the header's adds are relaxed too.
    tb->cur.store(w + kWords, std::memory_order_release);
  }
  uint64_t* s = slot + 2 + BRICKPROF__TILE_LEVEL_WORDS * level;
  __atomic_store_n(&s[0], s[0] + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&s[1], s[1] + ticks, __ATOMIC_RELAXED);
  __atomic_store_n(&s[2], s[2] + elements, __ATOMIC_RELAXED);
  __atomic_store_n(&s[3], s[3] + bytes, __ATOMIC_RELAXED);
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
  else if (g_clock_is_tsc && g_scope_end_hook.load(std::memory_order_relaxed) == nullptr &&
           !cpu_counters::active())
    state = BRICKPROF__FAST_INLINE;
  __atomic_store_n(g_fast_state_word, state, __ATOMIC_RELAXED);
}
}  // namespace

uint32_t Recorder::open_scopes(const uint32_t** sites) {
  ThreadBuffer* tb = tls_buffer;
  *sites = tb != nullptr ? tb->stack : nullptr;
  return tb != nullptr ? tb->depth : 0;
}

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
  if (!tb) tb = thread_buffers::register_current();
  return tb;
}
bool Recorder::enabled() { return recording(); }
bool Recorder::start_cpu_counters(cpu_counters::Mode mode) {
  const bool on = cpu_counters::start(mode);
  refresh_fast_state();
  return on;
}

void Recorder::capture_by_scope(std::string_view name) {
  sites::set_capture_name(name);
  g_capture_by_scope.store(!name.empty());
  refresh_fast_state();
}

bool Recorder::capturing_by_scope() { return g_capture_by_scope.load(std::memory_order_relaxed); }
void Recorder::set_capacity(uint64_t bytes) { budget::set_capacity(bytes); }

std::vector<Recorder::ThreadEvents> Recorder::snapshot() { return thread_buffers::snapshot(); }
void Recorder::resume_after_dump() { thread_buffers::resume(); }
void Recorder::release(const Segment& segment) { thread_buffers::release(segment); }

uint64_t Recorder::dropped_events() {
  // Live threads' drops are summed from their buffers; exited threads'
  // were added up when they retired.
  uint64_t total =
      g_dropped_unregistered.load(std::memory_order_relaxed) + thread_buffers::dropped_by_retired();
  return total + thread_buffers::live_dropped();
}

uint64_t Recorder::dropped_names() { return sites::dropped_names(); }
void Recorder::count_ignored() { g_ignored_api_calls.fetch_add(1, std::memory_order_relaxed); }
uint64_t Recorder::ignored_api_calls() { return g_ignored_api_calls.load(std::memory_order_relaxed); }

bool Recorder::recorded_anything() { return g_recorded_anything.load(std::memory_order_relaxed); }

void Recorder::reset_after_fork() {
  // Only the forking thread survives; the parent's events are not ours to
  // report. The sites stay: call sites cache their ids.
  thread_buffers::reset_after_fork();
  sites::reset_after_fork();
  budget::reset_after_fork(sites::bytes_held());
  g_dropped_unregistered.store(0);
  g_ignored_api_calls.store(0);
  g_recorded_anything.store(false);
  page_pool::reset_after_fork();
  checksum_table::reset_after_fork();
  cpu_counters::reset_after_fork();
  capture::reset_after_fork(capture::inside_trigger());
}

}  // namespace brickprof::agent
