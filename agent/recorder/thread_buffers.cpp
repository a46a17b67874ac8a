// Per-thread event buffers: registration, retirement at thread exit, and
// the dump's view of them (see thread_buffers.h).
//
// Retiring runs in a pthread key destructor on the exiting thread, so its
// buffer is quiet. The buffer's head stays readable afterwards: the public
// header caches it per translation unit, and a destructor that runs after
// ours may still push through it. It is pointed at a buffer with no room
// (the push reaches the agent, which registers the thread anew), and waits
// in a graveyard a second before it is reused or freed, by which time the
// thread is long gone.
#include "agent/recorder/thread_buffers.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>

#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/clock.h"
#include "agent/recorder/page_pool.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent::thread_buffers {

constinit thread_local ThreadBuffer* tls_buffer __attribute__((tls_model("initial-exec"))) =
    nullptr;

namespace {

// An exited thread's events: its full chunks, and the used part of its
// last chunk, copied into the arena when that chunk was mostly empty.
struct RetiredThread {
  uint64_t seq = 0;
  uint32_t tid = 0;
  char name[16] = {0};
  bool truncated = false;
  Chunk* full_head = nullptr;  // kept chunks, their sealed_count set
  const uint64_t* tail = nullptr;
  uint32_t tail_count = 0;
};

// Each registration pays up front for what the thread leaves when it exits
// (its retired entry and its slot in the live list), so retiring never
// needs the budget's permission except to keep the compacted words.
constexpr uint64_t kRegistrationBytes = sizeof(RetiredThread) + 2 * sizeof(ThreadBuffer*);
constexpr size_t kRetiredBlock = 1024;  // entries per block
// Blocks of compacted words: 4 KiB first, doubling to 512 KiB (a small
// cap must not go to one large block).
constexpr size_t kFirstArenaWords = 512;
constexpr size_t kArenaWords = 64 << 10;
constexpr int64_t kGraveyardNs = 1000000000;  // a retired head's quarantine
constexpr size_t kGraveyardKeep = 64;         // old heads kept for reuse, the rest freed

uint64_t g_no_room[1];  // what a retired head points at

struct State {
  std::mutex mutex;
  std::vector<ThreadBuffer*> live;
  std::vector<RetiredThread*> retired_blocks;
  size_t retired_count = 0;
  uint64_t* arena = nullptr;
  size_t arena_left = 0;
  size_t arena_block = kFirstArenaWords;   // the next block's words
  ThreadBuffer* graveyard_head = nullptr;  // oldest first
  ThreadBuffer* graveyard_tail = nullptr;
  size_t graveyard_size = 0;
  uint64_t next_seq = 0;
  bool pinned = false;  // a snapshot is in use: buffers stay as they are
  std::atomic<uint64_t> dropped_by_retired{0};
};

// Built on first use and never destroyed: the LD_PRELOAD constructor may
// run before this file's initialisers, and the dump runs after them.
State*& state_ptr() {
  static State* s = new State();
  return s;
}
State& state() { return *state_ptr(); }
// Built while the library loads, one thread running: a fork while another
// thread ran the initialiser would leave the child's guard taken for ever.
[[maybe_unused]] const bool kStateBuiltAtLoad = (state_ptr(), true);

pthread_key_t g_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

uint32_t current_tid() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

size_t chunk_bytes(uint32_t words) { return sizeof(Chunk) + (words - 1) * sizeof(uint64_t); }

void free_chunk(Chunk* c) {
  size_t bytes = chunk_bytes(c->capacity);
  if (c->from_pool)
    page_pool::release_block(c);
  else
    std::free(c);
  budget::release(bytes);
}

// Heads retired over a second ago: one is reused for `reuse`, surplus ones
// beyond a few are freed. Caller holds the lock.
ThreadBuffer* take_from_graveyard(State& s) {
  const int64_t now = monotonic_ns();
  ThreadBuffer* reused = nullptr;
  while (s.graveyard_head && now - s.graveyard_head->retired_ns > kGraveyardNs &&
         (!reused || s.graveyard_size > kGraveyardKeep)) {
    ThreadBuffer* old = s.graveyard_head;
    s.graveyard_head = old->next_retired;
    if (!s.graveyard_head) s.graveyard_tail = nullptr;
    --s.graveyard_size;
    if (!reused) {
      reused = old;
    } else {
      old->~ThreadBuffer();
      std::free(old);
      budget::release(sizeof(ThreadBuffer));
    }
  }
  return reused;
}

// Copies `count` words into the arena; nullptr if the budget refuses.
const uint64_t* compact(State& s, const uint64_t* words, uint32_t count) {
  if (count > s.arena_left) {
    const bool own = count > s.arena_block / 2;  // a big tail gets a block of its own
    size_t block_words = own ? count : s.arena_block;
    if (!budget::charge(block_words * sizeof(uint64_t))) return nullptr;
    auto* block = static_cast<uint64_t*>(std::malloc(block_words * sizeof(uint64_t)));
    if (!block) {
      budget::release(block_words * sizeof(uint64_t));
      return nullptr;
    }
    if (own) {  // the current block stays
      std::memcpy(block, words, count * sizeof(uint64_t));
      return block;
    }
    s.arena = block;
    s.arena_left = block_words;
    s.arena_block = std::min(2 * s.arena_block, kArenaWords);
  }
  uint64_t* at = s.arena;
  std::memcpy(at, words, count * sizeof(uint64_t));
  s.arena += count;
  s.arena_left -= count;
  return at;
}

RetiredThread* new_retired_entry(State& s) {
  if (s.retired_count == s.retired_blocks.size() * kRetiredBlock) {
    // Paid for at registration (kRegistrationBytes).
    auto* block = static_cast<RetiredThread*>(std::malloc(kRetiredBlock * sizeof(RetiredThread)));
    if (!block) return nullptr;
    s.retired_blocks.push_back(block);
  }
  RetiredThread* r =
      &s.retired_blocks[s.retired_count / kRetiredBlock][s.retired_count % kRetiredBlock];
  ++s.retired_count;
  return new (r) RetiredThread();
}

// Frees a thread's chunks, counting their records as dropped.
void drop_chain(State& s, ThreadBuffer* tb) {
  uint64_t records = 0;
  const uint64_t* cur = tb->cur.load(std::memory_order_relaxed);
  for (Chunk* c = tb->head; c;) {
    const bool live = c == tb->tail;
    const uint64_t* end = live ? cur : c->words + c->sealed_count.load(std::memory_order_relaxed);
    for (const uint64_t* w = c->words; w < end; ++records)
      w += reinterpret_cast<const Event*>(w)->words();
    Chunk* next = live ? nullptr : c->next;
    free_chunk(c);
    c = next;
  }
  s.dropped_by_retired.fetch_add(records, std::memory_order_relaxed);
}

void unlink_live(State& s, ThreadBuffer* tb) {
  ThreadBuffer* moved = s.live.back();
  s.live[tb->list_index] = moved;
  moved->list_index = tb->list_index;
  s.live.pop_back();
}

// The key's destructor: runs on the exiting thread.
void retire(void* arg) {
  auto* tb = static_cast<ThreadBuffer*>(arg);
  if (tls_buffer == tb) tls_buffer = nullptr;  // a later record registers anew
  State& s = state();
  AgentLock lock(s.mutex);
  if (s.pinned) return;  // the dump holds the buffers
  if (tb->list_index >= s.live.size() || s.live[tb->list_index] != tb) return;  // a parent's
  unlink_live(s, tb);
  note_name(tb);
  s.dropped_by_retired.fetch_add(tb->dropped.load(std::memory_order_relaxed),
                                 std::memory_order_relaxed);
  bool kept = false;
  if (Chunk* tail = tb->tail) {
    RetiredThread* r = new_retired_entry(s);
    if (!r) drop_chain(s, tb);  // no memory for its entry: its events are counted as dropped
    if (r) {
      kept = true;
      r->seq = tb->seq;
      r->tid = tb->tid;
      std::memcpy(r->name, tb->name, sizeof r->name);
      r->truncated = tb->truncated.load(std::memory_order_relaxed);
      r->full_head = tb->head;
      const uint32_t used =
          static_cast<uint32_t>(tb->cur.load(std::memory_order_relaxed) - tail->words);
      tail->sealed_count.store(used, std::memory_order_relaxed);
      // A mostly empty last chunk is copied and freed; a fuller one is kept.
      const uint64_t* copy =
          used > 0 && used <= tail->capacity / 2 ? compact(s, tail->words, used) : nullptr;
      if (copy || used == 0) {
        r->tail = copy;
        r->tail_count = used;
        if (r->full_head == tail) r->full_head = nullptr;
        for (Chunk* c = r->full_head; c; c = c->next)
          if (c->next == tail) c->next = nullptr;
        free_chunk(tail);
      }
    }
  }
  if (!kept) budget::release(sizeof(RetiredThread));
  budget::release(2 * sizeof(ThreadBuffer*));
  if (tb->stack) {
    std::free(tb->stack);
    tb->stack = nullptr;
    budget::release(ThreadBuffer::kMaxDepth * sizeof(uint32_t));
  }
  // The head stays readable (see the file comment) but has no room.
  tb->head = tb->tail = nullptr;
  tb->end = g_no_room;
  tb->cur.store(g_no_room, std::memory_order_release);
  tb->retired_ns = monotonic_ns();
  tb->next_retired = nullptr;
  if (ThreadBuffer* old = s.graveyard_size > kGraveyardKeep ? take_from_graveyard(s) : nullptr) {
    old->~ThreadBuffer();  // surplus: nobody registers to reuse it
    std::free(old);
    budget::release(sizeof(ThreadBuffer));
  }
  if (s.graveyard_tail)
    s.graveyard_tail->next_retired = tb;
  else
    s.graveyard_head = tb;
  s.graveyard_tail = tb;
  ++s.graveyard_size;
}

void make_key() { pthread_key_create(&g_key, retire); }

void add_segments(Chunk* head, uint64_t* live_cur, std::vector<Segment>& out, bool live_thread) {
  for (Chunk* c = head; c; c = c->next) {
    // The chunk holding the cursor is the live one; earlier ones are sealed.
    bool live = live_cur && live_cur >= c->words && live_cur <= c->words + c->capacity;
    uint32_t n = live ? static_cast<uint32_t>(live_cur - c->words)
                      : c->sealed_count.load(std::memory_order_acquire);
    // Never free the chunk a live thread writes to.
    out.push_back(Segment{c->words, n, live && live_thread ? nullptr : c});
    if (live) break;
  }
}

}  // namespace

void note_name(ThreadBuffer* tb) { prctl(PR_GET_NAME, tb->name, 0, 0, 0); }

ThreadBuffer* register_current() {
  pthread_once(&g_key_once, make_key);
  State& s = state();
  ThreadBuffer* tb = nullptr;
  {
    AgentLock lock(s.mutex);
    ThreadBuffer* memory = take_from_graveyard(s);
    if (memory) {
      memory->~ThreadBuffer();
    } else if (budget::charge(sizeof(ThreadBuffer))) {
      memory = static_cast<ThreadBuffer*>(std::malloc(sizeof(ThreadBuffer)));
      if (!memory) budget::release(sizeof(ThreadBuffer));
    }
    if (!memory) return nullptr;
    if (!budget::charge(kRegistrationBytes)) {
      // Back to the graveyard's front: still charged, reusable at once.
      memory->retired_ns = 0;
      memory->next_retired = s.graveyard_head;
      s.graveyard_head = memory;
      if (!s.graveyard_tail) s.graveyard_tail = memory;
      ++s.graveyard_size;
      return nullptr;
    }
    tb = new (memory) ThreadBuffer();
    tb->seq = s.next_seq++;
    tb->tid = current_tid();
    tb->list_index = static_cast<uint32_t>(s.live.size());
    s.live.push_back(tb);
  }
  note_name(tb);
  pthread_setspecific(g_key, tb);
  tls_buffer = tb;
  return tb;
}

Chunk* allocate_chunk(uint32_t words) {
  size_t bytes = chunk_bytes(words);
  if (!budget::charge(bytes)) return nullptr;
  // Full-size chunks come from the page pool, already populated.
  bool from_pool = bytes > page_pool::kBlockBytes / 2;
  void* memory = from_pool ? page_pool::take_block() : std::malloc(bytes);
  if (!memory) {
    budget::release(bytes);
    return nullptr;
  }
  Chunk* c = new (memory) Chunk();
  c->capacity = words;
  c->from_pool = from_pool;
  return c;
}

std::vector<ThreadEvents> snapshot() {
  State& s = state();
  AgentLock lock(s.mutex);
  s.pinned = true;
  std::vector<std::pair<uint64_t, ThreadEvents>> by_seq;
  by_seq.reserve(s.live.size() + s.retired_count);
  for (ThreadBuffer* tb : s.live) {
    ThreadEvents te;
    te.tid = tb->tid;
    te.name.assign(tb->name, strnlen(tb->name, sizeof tb->name));
    te.truncated = tb->truncated.load(std::memory_order_relaxed);
    // The cursor before the head: the owner links a chunk before it
    // publishes a cursor into it, so the chain read after the cursor holds
    // it. A thread with no cursor yet may be linking its first chunk right
    // now: nothing of it is published, and that chunk is its own to keep.
    if (uint64_t* cur = tb->cur.load(std::memory_order_acquire))
      add_segments(tb->head, cur, te.segments, true);
    by_seq.emplace_back(tb->seq, std::move(te));
  }
  for (size_t i = 0; i < s.retired_count; ++i) {
    const RetiredThread& r = s.retired_blocks[i / kRetiredBlock][i % kRetiredBlock];
    ThreadEvents te;
    te.tid = r.tid;
    te.name.assign(r.name, strnlen(r.name, sizeof r.name));
    te.truncated = r.truncated;
    add_segments(r.full_head, nullptr, te.segments, false);
    if (r.tail_count) te.segments.push_back(Segment{r.tail, r.tail_count, nullptr});
    by_seq.emplace_back(r.seq, std::move(te));
  }
  std::sort(by_seq.begin(), by_seq.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ThreadEvents> out;
  out.reserve(by_seq.size());
  for (auto& [seq, te] : by_seq) out.push_back(std::move(te));
  return out;
}

void resume() {
  State& s = state();
  AgentLock lock(s.mutex);
  s.pinned = false;
}

void release(const Segment& segment) {
  if (segment.chunk) free_chunk(segment.chunk);
}

uint64_t dropped_by_retired() { return state().dropped_by_retired.load(std::memory_order_relaxed); }

uint64_t live_dropped() {
  State& s = state();
  AgentLock lock(s.mutex);
  uint64_t total = 0;
  for (ThreadBuffer* tb : s.live) total += tb->dropped.load(std::memory_order_relaxed);
  return total;
}

uint64_t retired_count() {
  State& s = state();
  AgentLock lock(s.mutex);
  return s.retired_count;
}

void reset_after_fork() {
  // The parent's buffers, live and retired, are abandoned (the child may
  // exec soon anyway); its lock may have been held by another thread.
  state_ptr() = new State();
  // The header caches this thread's buffer: make it look full so the next
  // push asks the agent again and gets a fresh one.
  if (ThreadBuffer* old = tls_buffer) old->end = old->cur.load(std::memory_order_relaxed);
  tls_buffer = nullptr;
}

}  // namespace brickprof::agent::thread_buffers
