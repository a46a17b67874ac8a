/* Not API: the inline recording path of <brickprof/brickprof.h>. While the
 * agent allows it, a push or pop appends its record to the calling thread's
 * buffer here, without a call into the agent; everything else goes through
 * the agent's table (detail/abi.h). */
#ifndef BRICKPROF__FAST_PATH_H
#define BRICKPROF__FAST_PATH_H

#include <stdint.h>

#include "brickprof/detail/abi.h"
#include "brickprof/detail/bind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What brickprof__push_fast returns: 0, not recorded; 1, recorded by the
 * agent; BRICKPROF__INLINE, written here (its pop is written here too). */
#define BRICKPROF__INLINE 2

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BRICKPROF__HAVE_FAST_PATH 1
/* A buffer with no room. Each thread starts with it, so its first push asks
 * the agent, which registers the thread. */
static uint64_t brickprof__no_room[1] BRICKPROF__UNUSED;
static brickprof__thread_buffer brickprof__no_buffer BRICKPROF__UNUSED = {brickprof__no_room,
                                                                          brickprof__no_room};
/* One per translation unit and thread: this thread's buffer, once known. */
static __thread brickprof__thread_buffer* brickprof__buffer BRICKPROF__UNUSED =
    &brickprof__no_buffer;

/* After the agent handled a record the inline path could not write (first
 * use on a thread, a full chunk, a fork): take the thread's buffer again. */
static BRICKPROF__NOINLINE BRICKPROF__UNUSED void brickprof__refresh(
    const brickprof__api_table* api) {
  brickprof__thread_buffer* tb =
      api->record_layout == BRICKPROF__RECORD_LAYOUT ? api->thread_buffer() : 0;
  brickprof__buffer = tb ? tb : &brickprof__no_buffer;
}

static inline int brickprof__push_fast(const brickprof__api_table* api, brickprof__site* site,
                                       uint64_t arg) {
  uint32_t state = api->fast_state;
  uint32_t cookie = __atomic_load_n(&site->cookie, __ATOMIC_RELAXED);
  brickprof__thread_buffer* tb = brickprof__buffer;
  uint64_t* w = tb->cur;
  int recorded;
  if (state == BRICKPROF__FAST_OFF) return 0;
  if (BRICKPROF__UNLIKELY(state != BRICKPROF__FAST_INLINE || cookie == 0))
    return api->push(site, arg);
  if (BRICKPROF__UNLIKELY(tb->end - w < BRICKPROF__PUSH_WORDS)) {
    recorded = api->push(site, arg);
    brickprof__refresh(api);
    return recorded;
  }
  w[0] = (uint64_t)(cookie - 1) | BRICKPROF__RECORD_PUSH << 32;
  w[2] = arg;
  w[1] = __builtin_ia32_rdtsc(); /* last: the scope starts here */
  __atomic_store_n(&tb->cur, w + BRICKPROF__PUSH_WORDS, __ATOMIC_RELEASE);
  return BRICKPROF__INLINE;
}

/* Closes a scope whose push was written inline: no state check, so a scope
 * that was recorded is always closed (even if recording stopped since). */
static inline void brickprof__pop_inline(const brickprof__api_table* api) {
  brickprof__thread_buffer* tb = brickprof__buffer;
  uint64_t* w = tb->cur;
  if (BRICKPROF__UNLIKELY(tb->end - w < BRICKPROF__POP_WORDS)) {
    api->pop();
    brickprof__refresh(api);
    return;
  }
  w[1] = __builtin_ia32_rdtsc();
  w[0] = BRICKPROF__RECORD_POP << 32;
  __atomic_store_n(&tb->cur, w + BRICKPROF__POP_WORDS, __ATOMIC_RELEASE);
}

static inline void brickprof__pop_fast(const brickprof__api_table* api) {
  uint32_t state = api->fast_state;
  if (state == BRICKPROF__FAST_OFF) return;
  if (BRICKPROF__UNLIKELY(state != BRICKPROF__FAST_INLINE)) {
    api->pop();
    return;
  }
  brickprof__pop_inline(api);
}

/* This thread's tile record written here last (abi.h), if still the last
 * record of its buffer; checked against the buffer before each use. */
static __thread uint64_t* brickprof__tile_last BRICKPROF__UNUSED = 0;

static inline brickprof_tile brickprof__tile_begin_fast(const brickprof__api_table* api) {
  brickprof_tile tile = {0, 0};
  uint32_t state = api->fast_state;
  if (state == BRICKPROF__FAST_OFF || !BRICKPROF__HAS(api, tile)) return tile;
  if (BRICKPROF__UNLIKELY(state != BRICKPROF__FAST_INLINE ||
                          brickprof__buffer == &brickprof__no_buffer)) {
    tile.how = 1;
    tile.start = api->tile_ticks();
    return tile;
  }
  tile.how = BRICKPROF__INLINE;
  tile.start = __builtin_ia32_rdtsc();
  return tile;
}

/* Through the agent: a tile started there, a level out of range, or a
 * full chunk. Takes the thread's buffer afterwards if the agent allows the
 * inline path now (its first record registered the thread). */
static BRICKPROF__NOINLINE BRICKPROF__UNUSED void brickprof__tile_call(
    const brickprof__api_table* api, uint64_t ticks, int32_t level, uint64_t elements,
    uint64_t bytes) {
  api->tile(level, ticks, elements, bytes);
  if (api->fast_state == BRICKPROF__FAST_INLINE && brickprof__buffer == &brickprof__no_buffer)
    brickprof__refresh(api);
}

/* Adds to one level's four words; relaxed stores, as the agent may read a
 * published record at exit while its thread still runs. */
static inline void brickprof__tile_add(uint64_t* slot, uint64_t ticks, uint64_t elements,
                                       uint64_t bytes) {
  __atomic_store_n(&slot[0], slot[0] + 1, __ATOMIC_RELAXED);
  __atomic_store_n(&slot[1], slot[1] + ticks, __ATOMIC_RELAXED);
  __atomic_store_n(&slot[2], slot[2] + elements, __ATOMIC_RELAXED);
  __atomic_store_n(&slot[3], slot[3] + bytes, __ATOMIC_RELAXED);
}

static inline void brickprof__tile_end_fast(const brickprof__api_table* api, brickprof_tile tile,
                                            int32_t level, uint64_t elements, uint64_t bytes) {
  brickprof__thread_buffer* tb;
  uint64_t *w, *r, now;
  int i;
  if (tile.how != BRICKPROF__INLINE) {
    if (tile.how) brickprof__tile_call(api, api->tile_ticks() - tile.start, level, elements, bytes);
    return;
  }
  now = __builtin_ia32_rdtsc();
  if (BRICKPROF__UNLIKELY((uint32_t)level >= BRICKPROF_TILE_LEVELS)) {
    brickprof__tile_call(api, now - tile.start, level, elements, bytes);
    return;
  }
  tb = brickprof__buffer;
  w = tb->cur;
  r = w - BRICKPROF__TILE_WORDS;
  /* Still the last record: no push or pop since, so the same scope. */
  if (r == brickprof__tile_last && r[0] == BRICKPROF__RECORD_TILE << 32) {
    brickprof__tile_add(r + 2 + BRICKPROF__TILE_LEVEL_WORDS * level, now - tile.start, elements,
                        bytes);
    return;
  }
  if (BRICKPROF__UNLIKELY(tb->end - w < BRICKPROF__TILE_WORDS)) {
    brickprof__tile_call(api, now - tile.start, level, elements, bytes);
    return;
  }
  w[0] = BRICKPROF__RECORD_TILE << 32;
  w[1] = now; /* in order with the records before it */
  for (i = 2; i < BRICKPROF__TILE_WORDS; ++i) w[i] = 0;
  brickprof__tile_add(w + 2 + BRICKPROF__TILE_LEVEL_WORDS * level, now - tile.start, elements,
                      bytes);
  brickprof__tile_last = w;
  __atomic_store_n(&tb->cur, w + BRICKPROF__TILE_WORDS, __ATOMIC_RELEASE);
}
#else
#define BRICKPROF__HAVE_FAST_PATH 0
static inline int brickprof__push_fast(const brickprof__api_table* api, brickprof__site* site,
                                       uint64_t arg) {
  return api->push(site, arg);
}
static inline void brickprof__pop_fast(const brickprof__api_table* api) { api->pop(); }
static inline void brickprof__pop_inline(const brickprof__api_table* api) { api->pop(); }
static inline brickprof_tile brickprof__tile_begin_fast(const brickprof__api_table* api) {
  brickprof_tile tile = {0, 0};
  if (api->fast_state == BRICKPROF__FAST_OFF || !BRICKPROF__HAS(api, tile)) return tile;
  tile.how = 1;
  tile.start = api->tile_ticks();
  return tile;
}
static inline void brickprof__tile_end_fast(const brickprof__api_table* api, brickprof_tile tile,
                                            int32_t level, uint64_t elements, uint64_t bytes) {
  if (tile.how) api->tile(level, api->tile_ticks() - tile.start, elements, bytes);
}
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BRICKPROF__FAST_PATH_H */
