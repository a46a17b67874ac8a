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
#else
#define BRICKPROF__HAVE_FAST_PATH 0
static inline int brickprof__push_fast(const brickprof__api_table* api, brickprof__site* site,
                                       uint64_t arg) {
  return api->push(site, arg);
}
static inline void brickprof__pop_fast(const brickprof__api_table* api) { api->pop(); }
static inline void brickprof__pop_inline(const brickprof__api_table* api) { api->pop(); }
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BRICKPROF__FAST_PATH_H */
