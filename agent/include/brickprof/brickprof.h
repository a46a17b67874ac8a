/* brickprof scope API: mark layers, bricks and scopes in a program so the
 * brickprof agent can group kernels and CPU time under them.
 *
 * Header-only, C ABI, no link against the agent. The first call looks the
 * agent up (it is LD_PRELOADed or loaded as a CUDA/NVTX injection); if it is
 * not there, every call costs one load and one branch. Compiles as C99 and as
 * C++11 or later; link with -ldl on old glibc.
 *
 *   C++:  BRICKPROF_LAYER(i);  BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, n);
 *         BRICKPROF_SCOPE("softmax");  BRICKPROF_WORK(flops, bytes);
 *   C:    BRICKPROF_PUSH_LAYER(i); ... BRICKPROF_POP();
 *   Both: BRICKPROF_SET_HOST_PEAKS(gflops, gbps, "how") once the program
 *         measured its machine (for the CPU roofline).
 *
 * Define BRICKPROF_DISABLE to compile every macro out.
 */
#ifndef BRICKPROF_BRICKPROF_H_
#define BRICKPROF_BRICKPROF_H_

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of brickprof_api or brickprof_site.
 * 2: the table gained the recording fast path. */
#define BRICKPROF_ABI_VERSION 2u

typedef enum brickprof_kind {
  BRICKPROF_KIND_LAYER = 0,
  BRICKPROF_KIND_BRICK = 1,
  BRICKPROF_KIND_SCOPE = 2
} brickprof_kind;

/* The 15 well-known bricks; their categories are in the comments. */
typedef enum brickprof_brick {
  BRICKPROF_BRICK_RMS_NORM = 0,          /* Norm */
  BRICKPROF_BRICK_LAYER_NORM = 1,        /* Norm */
  BRICKPROF_BRICK_QKV_PROJECTION = 2,    /* Attention */
  BRICKPROF_BRICK_ROPE_EMBEDDING = 3,    /* Attention */
  BRICKPROF_BRICK_ATTENTION_SCORE = 4,   /* Attention */
  BRICKPROF_BRICK_ATTENTION_SOFTMAX = 5, /* Attention */
  BRICKPROF_BRICK_ATTENTION_OUTPUT = 6,  /* Attention */
  BRICKPROF_BRICK_OUTPUT_PROJECTION = 7, /* Attention */
  BRICKPROF_BRICK_GATE_PROJECTION = 8,   /* FFN */
  BRICKPROF_BRICK_UP_PROJECTION = 9,     /* FFN */
  BRICKPROF_BRICK_ACTIVATION = 10,       /* FFN */
  BRICKPROF_BRICK_DOWN_PROJECTION = 11,  /* FFN */
  BRICKPROF_BRICK_EMBEDDING = 12,        /* Other */
  BRICKPROF_BRICK_LM_HEAD = 13,          /* Other */
  BRICKPROF_BRICK_SAMPLING = 14,         /* Other */
  BRICKPROF_BRICK_COUNT = 15,
  BRICKPROF_BRICK_CUSTOM = -1
} brickprof_brick;

/* Static metadata of one call site. The macros make one per site, so a push
 * passes a pointer instead of a string. `name` is NULL for well-known bricks
 * and for layers; `cookie` belongs to the agent (it caches the interned name
 * there) and must start at 0. */
typedef struct brickprof_site {
  const char* name;
  int32_t kind;  /* brickprof_kind */
  int32_t brick; /* brickprof_brick, or BRICKPROF_BRICK_CUSTOM */
  uint32_t cookie;
  uint32_t reserved;
} brickprof_site;

/* ---- the recording fast path (ABI) ---------------------------------------
 * A push or pop is two timestamps and a store, so a call into the agent would
 * cost more than the work. While the agent says so (`fast_state` below), the
 * header appends the record to the calling thread's buffer itself; anything
 * unusual (first use on a thread, a full buffer, sync modes, no cycle
 * counter) goes through the table's functions instead. */
/* A thread's buffer is a run of 8-byte words; a record is a tag (site id |
 * type << 32), the cycle counter, then its payload: a push carries its arg
 * (3 words), a pop nothing (2 words). */
#define BRICKPROF_RECORD_PUSH 0ull
#define BRICKPROF_RECORD_POP 1ull
#define BRICKPROF_PUSH_WORDS 3
#define BRICKPROF_POP_WORDS 2
#define BRICKPROF_RECORD_LAYOUT 2u /* bumped whenever the above changes */

/* The head of one thread's buffer: the next free record and the end of the
 * current chunk. Only its thread writes `cur`; the agent reads it at exit. */
typedef struct brickprof_thread_buffer {
  uint64_t* cur;
  uint64_t* end;
} brickprof_thread_buffer;

#define BRICKPROF_FAST_OFF 0u       /* disabled: push and pop do nothing */
#define BRICKPROF_FAST_INLINE 1u    /* the header may append records itself */
#define BRICKPROF_FAST_CALL 2u      /* recording, but through the functions */

/* The agent's function table. Fields are only ever appended; `size` says how
 * many this agent has, and the header checks it before calling one that
 * came later than the fast path (BRICKPROF__HAS), so an older agent works. */
typedef struct brickprof_api {
  uint32_t abi_version;
  uint32_t size;
  /* Opens a scope; `arg` is the layer index for layers, else an element
   * count. Returns 1 if a pop must follow (recorded, or counted inside a
   * BRICKPROF_CAPTURE trigger scope), 0 if not. */
  int (*push)(brickprof_site* site, uint64_t arg);
  /* Same, with a name the agent copies (for names built at run time). */
  int (*push_name)(int32_t kind, const char* name, uint64_t arg);
  void (*pop)(void);
  /* Adds FLOPs and bytes moved to the innermost open scope (roofline). */
  void (*add_work)(double flops, double bytes);
  void (*set_enabled)(int enabled);
  int (*is_enabled)(void);
  /* Fast path: BRICKPROF_FAST_* (read on every push and pop, so it sits in
   * the table's first cache line), the record layout the agent
   * expects, and the calling thread's buffer (registers the thread; NULL if
   * it cannot record). */
  volatile uint32_t fast_state;
  uint32_t record_layout;
  brickprof_thread_buffer* (*thread_buffer)(void);
  /* ---- appended; check `size` first ---- */
  /* The host's peak FLOP/s (GFLOP/s) and memory bandwidth (GB/s, 1e9 B/s)
   * as the program measured them; 0 = not measured. `how` (copied, may be
   * NULL) says how. Each call replaces the last; thread-safe. The trace
   * gets a devices[] entry "cpu" with them. */
  void (*set_host_peaks)(double gflops, double gbps, const char* how);
} brickprof_api;

/* Whether `api` has `field` (an agent older than this header may not). */
#define BRICKPROF__HAS(api, field) \
  ((api)->size >= offsetof(brickprof_api, field) + sizeof((api)->field))

/* Exported by the agent. Returns NULL if `abi_version` is not supported
 * (an agent serves every version from 1 to its own). */
typedef const brickprof_api* (*brickprof_get_api_fn)(uint32_t abi_version);

/* ---- lazy binding (internal to this header) ---------------------------- */

#define BRICKPROF__UNRESOLVED ((const brickprof_api*)(uintptr_t)1)
#if defined(__GNUC__)
#define BRICKPROF__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define BRICKPROF__UNUSED __attribute__((unused))
#define BRICKPROF__NOINLINE __attribute__((noinline))
#else
#define BRICKPROF__UNLIKELY(x) (x)
#define BRICKPROF__UNUSED
#define BRICKPROF__NOINLINE
#endif
/* glibc values, for strict C99 builds where <dlfcn.h> hides the GNU names. */
#ifdef RTLD_DEFAULT
#define BRICKPROF__RTLD_DEFAULT RTLD_DEFAULT
#else
#define BRICKPROF__RTLD_DEFAULT ((void*)0)
#endif
#ifdef RTLD_NOLOAD
#define BRICKPROF__RTLD_NOLOAD RTLD_NOLOAD
#else
#define BRICKPROF__RTLD_NOLOAD 0x00004
#endif

/* One per translation unit: NULL once we know there is no agent. */
static const brickprof_api* brickprof__table BRICKPROF__UNUSED = BRICKPROF__UNRESOLVED;

static BRICKPROF__NOINLINE BRICKPROF__UNUSED const brickprof_api* brickprof__resolve(void) {
  /* The agent is found in the global scope (LD_PRELOAD) or, when a CUDA or
   * NVTX loader opened it privately, by asking for the already-loaded file. */
  static const char* const kPathVars[] = {"BRICKPROF_AGENT", "CUDA_INJECTION64_PATH",
                                          "NVTX_INJECTION64_PATH"};
  const brickprof_api* api = 0;
  brickprof_get_api_fn get = 0;
  void* sym = dlsym(BRICKPROF__RTLD_DEFAULT, "brickprof_get_api");
  unsigned i;
  for (i = 0; !sym && i < sizeof(kPathVars) / sizeof(kPathVars[0]); ++i) {
    const char* path = getenv(kPathVars[i]);
    void* handle = (path && *path) ? dlopen(path, RTLD_LAZY | BRICKPROF__RTLD_NOLOAD) : 0;
    if (handle) {
      sym = dlsym(handle, "brickprof_get_api");
      dlclose(handle); /* only drops our reference; its loader keeps it */
    }
  }
  if (sym) {
    memcpy(&get, &sym, sizeof(get));
    api = get(BRICKPROF_ABI_VERSION);
  }
  __atomic_store_n(&brickprof__table, api, __ATOMIC_RELEASE);
  return api;
}

/* The agent's table, or NULL when no agent is loaded. */
static inline const brickprof_api* brickprof__api(void) {
  const brickprof_api* api = __atomic_load_n(&brickprof__table, __ATOMIC_ACQUIRE);
  if (BRICKPROF__UNLIKELY(api == BRICKPROF__UNRESOLVED)) return brickprof__resolve();
  return api;
}

/* ---- C functions --------------------------------------------------------- */

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BRICKPROF__HAVE_FAST_PATH 1
/* A buffer with no room. Each thread starts with it, so its first push asks
 * the agent, which registers the thread. */
static uint64_t brickprof__no_room[1] BRICKPROF__UNUSED;
static brickprof_thread_buffer brickprof__no_buffer BRICKPROF__UNUSED = {brickprof__no_room,
                                                                        brickprof__no_room};
/* One per translation unit and thread: this thread's buffer, once known. */
static __thread brickprof_thread_buffer* brickprof__buffer BRICKPROF__UNUSED = &brickprof__no_buffer;

/* After the agent handled a record the inline path could not write (first
 * use on a thread, a full chunk, a fork): take the thread's buffer again. */
static BRICKPROF__NOINLINE BRICKPROF__UNUSED void brickprof__refresh(const brickprof_api* api) {
  brickprof_thread_buffer* tb =
      api->record_layout == BRICKPROF_RECORD_LAYOUT ? api->thread_buffer() : 0;
  brickprof__buffer = tb ? tb : &brickprof__no_buffer;
}

/* 0: not recorded; 1: recorded by the agent; BRICKPROF__INLINE: written here. */
#define BRICKPROF__INLINE 2
static inline int brickprof__push_fast(const brickprof_api* api, brickprof_site* site,
                                       uint64_t arg) {
  uint32_t state = api->fast_state;
  uint32_t cookie = __atomic_load_n(&site->cookie, __ATOMIC_RELAXED);
  brickprof_thread_buffer* tb = brickprof__buffer;
  uint64_t* w = tb->cur;
  int recorded;
  if (state == BRICKPROF_FAST_OFF) return 0;
  if (BRICKPROF__UNLIKELY(state != BRICKPROF_FAST_INLINE || cookie == 0)) return api->push(site, arg);
  if (BRICKPROF__UNLIKELY(tb->end - w < BRICKPROF_PUSH_WORDS)) {
    recorded = api->push(site, arg);
    brickprof__refresh(api);
    return recorded;
  }
  w[0] = (uint64_t)(cookie - 1) | BRICKPROF_RECORD_PUSH << 32;
  w[2] = arg;
  w[1] = __builtin_ia32_rdtsc(); /* last: the scope starts here */
  __atomic_store_n(&tb->cur, w + BRICKPROF_PUSH_WORDS, __ATOMIC_RELEASE);
  return BRICKPROF__INLINE;
}

/* Closes a scope whose push was written inline: no state check, so a scope
 * that was recorded is always closed (even if recording stopped since). */
static inline void brickprof__pop_inline(const brickprof_api* api) {
  brickprof_thread_buffer* tb = brickprof__buffer;
  uint64_t* w = tb->cur;
  if (BRICKPROF__UNLIKELY(tb->end - w < BRICKPROF_POP_WORDS)) {
    api->pop();
    brickprof__refresh(api);
    return;
  }
  w[1] = __builtin_ia32_rdtsc();
  w[0] = BRICKPROF_RECORD_POP << 32;
  __atomic_store_n(&tb->cur, w + BRICKPROF_POP_WORDS, __ATOMIC_RELEASE);
}

static inline void brickprof__pop_fast(const brickprof_api* api) {
  uint32_t state = api->fast_state;
  if (state == BRICKPROF_FAST_OFF) return;
  if (BRICKPROF__UNLIKELY(state != BRICKPROF_FAST_INLINE)) {
    api->pop();
    return;
  }
  brickprof__pop_inline(api);
}
#else
#define BRICKPROF__HAVE_FAST_PATH 0
#define BRICKPROF__INLINE 2
static inline int brickprof__push_fast(const brickprof_api* api, brickprof_site* site,
                                       uint64_t arg) {
  return api->push(site, arg);
}
static inline void brickprof__pop_fast(const brickprof_api* api) { api->pop(); }
static inline void brickprof__pop_inline(const brickprof_api* api) { api->pop(); }
#endif

static inline int brickprof_push_site(brickprof_site* site, uint64_t arg) {
  const brickprof_api* api = brickprof__api();
  return api ? brickprof__push_fast(api, site, arg) != 0 : 0;
}
/* `name` is copied; use this for names made at run time. */
static inline int brickprof_push_name(brickprof_kind kind, const char* name, uint64_t arg) {
  const brickprof_api* api = brickprof__api();
  return api ? api->push_name((int32_t)kind, name, arg) : 0;
}
static inline void brickprof_pop(void) {
  const brickprof_api* api = brickprof__api();
  if (api) brickprof__pop_fast(api);
}
static inline void brickprof_add_work(double flops, double bytes) {
  const brickprof_api* api = brickprof__api();
  if (api) api->add_work(flops, bytes);
}
static inline void brickprof_set_enabled(int enabled) {
  const brickprof_api* api = brickprof__api();
  if (api) api->set_enabled(enabled);
}
/* The machine's measured peaks, for the roofline of CPU work (see the
 * table's set_host_peaks); 0 for a figure not measured. */
static inline void brickprof_set_host_peaks(double gflops, double gbps, const char* how) {
  const brickprof_api* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, set_host_peaks)) api->set_host_peaks(gflops, gbps, how);
}
/* 1 when an agent is loaded and recording. */
static inline int brickprof_is_enabled(void) {
  const brickprof_api* api = brickprof__api();
  return api ? api->is_enabled() : 0;
}

#define BRICKPROF__CAT2(a, b) a##b
#define BRICKPROF__CAT(a, b) BRICKPROF__CAT2(a, b)
#ifdef __COUNTER__
#define BRICKPROF__UNIQUE(prefix) BRICKPROF__CAT(prefix, __COUNTER__)
#else
#define BRICKPROF__UNIQUE(prefix) BRICKPROF__CAT(prefix, __LINE__)
#endif

#ifndef BRICKPROF_DISABLE
/* C statement macros; each push that returned 1 needs a BRICKPROF_POP(). */
#define BRICKPROF__PUSH(kind, brick, name, arg)                        \
  do {                                                                 \
    static brickprof_site brickprof__site = {(name), (kind), (brick), 0, 0}; \
    (void)brickprof_push_site(&brickprof__site, (uint64_t)(arg));       \
  } while (0)
#define BRICKPROF_PUSH_LAYER(index) \
  BRICKPROF__PUSH(BRICKPROF_KIND_LAYER, BRICKPROF_BRICK_CUSTOM, 0, (index))
#define BRICKPROF_PUSH_BRICK(brick, elements) \
  BRICKPROF__PUSH(BRICKPROF_KIND_BRICK, (brick), 0, (elements))
#define BRICKPROF_PUSH_BRICK_NAMED(literal, elements) \
  BRICKPROF__PUSH(BRICKPROF_KIND_BRICK, BRICKPROF_BRICK_CUSTOM, (literal), (elements))
#define BRICKPROF_PUSH_SCOPE(literal) \
  BRICKPROF__PUSH(BRICKPROF_KIND_SCOPE, BRICKPROF_BRICK_CUSTOM, (literal), 0)
#define BRICKPROF_POP() brickprof_pop()
#define BRICKPROF_ADD_WORK(flops, bytes) brickprof_add_work((double)(flops), (double)(bytes))
#define BRICKPROF_SET_HOST_PEAKS(gflops, gbps, how) \
  brickprof_set_host_peaks((double)(gflops), (double)(gbps), (how))
#else
#define BRICKPROF_PUSH_LAYER(index) ((void)0)
#define BRICKPROF_PUSH_BRICK(brick, elements) ((void)0)
#define BRICKPROF_PUSH_BRICK_NAMED(literal, elements) ((void)0)
#define BRICKPROF_PUSH_SCOPE(literal) ((void)0)
#define BRICKPROF_POP() ((void)0)
#define BRICKPROF_ADD_WORK(flops, bytes) ((void)0)
#define BRICKPROF_SET_HOST_PEAKS(gflops, gbps, how) ((void)0)
#endif

#ifdef __cplusplus
} /* extern "C" */

namespace brickprof {

/* Closes the scope it opened, if the agent recorded it. */
class ScopeGuard {
 public:
  ScopeGuard(brickprof_site* site, uint64_t arg) : api_(brickprof__api()), how_(0) {
    if (api_) how_ = brickprof__push_fast(api_, site, arg);
  }
  ScopeGuard(brickprof_kind kind, const char* name, uint64_t arg)
      : api_(brickprof__api()), how_(0) {
    if (api_) how_ = api_->push_name(static_cast<int32_t>(kind), name, arg);
  }
  ~ScopeGuard() {
    if (how_ == BRICKPROF__INLINE)
      brickprof__pop_inline(api_);
    else if (how_)
      api_->pop();
  }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  const brickprof_api* api_;
  int how_; /* what brickprof__push_fast returned */
};

}  // namespace brickprof

#ifndef BRICKPROF_DISABLE
#define BRICKPROF__GUARD(site_name, kind, brick, name, arg)                    \
  static brickprof_site site_name = {(name), (kind), (brick), 0, 0};           \
  ::brickprof::ScopeGuard BRICKPROF__CAT(site_name, _guard)(&site_name,        \
                                                           static_cast<uint64_t>(arg))
/* Layer `index` until the end of the enclosing block. */
#define BRICKPROF_LAYER(index)                                                    \
  BRICKPROF__GUARD(BRICKPROF__UNIQUE(brickprof__site_), BRICKPROF_KIND_LAYER, \
                   BRICKPROF_BRICK_CUSTOM, nullptr, (index))
/* A well-known brick (a brickprof_brick value) over `elements` elements. */
#define BRICKPROF_BRICK(brick, elements)                                          \
  BRICKPROF__GUARD(BRICKPROF__UNIQUE(brickprof__site_), BRICKPROF_KIND_BRICK, \
                   (brick), nullptr, (elements))
/* A custom brick named by a string literal. */
#define BRICKPROF_BRICK_NAMED(literal, elements)                                  \
  BRICKPROF__GUARD(BRICKPROF__UNIQUE(brickprof__site_), BRICKPROF_KIND_BRICK, \
                   BRICKPROF_BRICK_CUSTOM, (literal), (elements))
/* A plain named scope (string literal). */
#define BRICKPROF_SCOPE(literal)                                                  \
  BRICKPROF__GUARD(BRICKPROF__UNIQUE(brickprof__site_), BRICKPROF_KIND_SCOPE, \
                   BRICKPROF_BRICK_CUSTOM, (literal), 0)
/* A scope with a name built at run time (copied by the agent). */
#define BRICKPROF_SCOPE_DYNAMIC(kind, name, arg) \
  ::brickprof::ScopeGuard BRICKPROF__UNIQUE(brickprof__guard_)((kind), (name), (arg))
#define BRICKPROF_WORK(flops, bytes) BRICKPROF_ADD_WORK(flops, bytes)
#else
#define BRICKPROF_LAYER(index) ((void)0)
#define BRICKPROF_BRICK(brick, elements) ((void)0)
#define BRICKPROF_BRICK_NAMED(literal, elements) ((void)0)
#define BRICKPROF_SCOPE(literal) ((void)0)
#define BRICKPROF_SCOPE_DYNAMIC(kind, name, arg) ((void)0)
#define BRICKPROF_WORK(flops, bytes) ((void)0)
#endif

#endif /* __cplusplus */

#endif /* BRICKPROF_BRICKPROF_H_ */
