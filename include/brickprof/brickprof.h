/* brickprof scope API: mark layers, bricks and scopes in a program so the
 * brickprof agent groups kernels and CPU time under them.
 *
 * Header-only, C ABI, no link against the agent (link with -ldl on old
 * glibc). The first call looks the agent up; without it every call costs one
 * load and one branch. C99, and C++11 or later. Define BRICKPROF_DISABLE to
 * compile every macro out. Only brickprof_ and BRICKPROF_ names are API; the
 * brickprof__ and BRICKPROF__ names of brickprof/detail/ are not. */
#ifndef BRICKPROF_BRICKPROF_H_
#define BRICKPROF_BRICKPROF_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a scope is (brickprof_push_name, BRICKPROF_SCOPE_DYNAMIC). */
typedef enum brickprof_kind {
  BRICKPROF_KIND_LAYER = 0, /* a model layer; its arg is the layer index */
  BRICKPROF_KIND_BRICK = 1, /* a brick; its arg is an element count */
  BRICKPROF_KIND_SCOPE = 2  /* any other named scope */
} brickprof_kind;

/* The well-known bricks, by category; any other brick is custom (named). */
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
  BRICKPROF_BRICK_COUNT = 15,            /* how many well-known bricks there are */
  BRICKPROF_BRICK_CUSTOM = -1            /* a brick known by its name */
} brickprof_brick;

/* The levels of a cache-blocked operation's tiles (BRICKPROF_TILE): a
 * macro tile is sized for the last-level cache (L3), a midi tile for L2, a
 * micro tile for L1 and the registers. `brickprof report --tiles` sets each
 * level's bytes per second against that cache's measured bandwidth. */
typedef enum brickprof_tile_level {
  BRICKPROF_TILE_MACRO = 0,
  BRICKPROF_TILE_MIDI = 1,
  BRICKPROF_TILE_MICRO = 2,
  BRICKPROF_TILE_LEVELS = 3 /* how many levels there are */
} brickprof_tile_level;

/* A started tile (brickprof_tile_begin); copy it, do not look inside. */
typedef struct brickprof_tile {
  uint64_t start;
  int how;
} brickprof_tile;

#ifdef __cplusplus
/* C++: each opens a scope that lasts until the end of the enclosing block. */
/* Layer `index`. */
#define BRICKPROF_LAYER(index) \
  BRICKPROF__GUARD(BRICKPROF_KIND_LAYER, BRICKPROF_BRICK_CUSTOM, nullptr, (index))
/* A well-known brick (a brickprof_brick) over `elements` elements. */
#define BRICKPROF_BRICK(brick, elements) \
  BRICKPROF__GUARD(BRICKPROF_KIND_BRICK, (brick), nullptr, (elements))
/* A custom brick named by a string literal. */
#define BRICKPROF_BRICK_NAMED(literal, elements) \
  BRICKPROF__GUARD(BRICKPROF_KIND_BRICK, BRICKPROF_BRICK_CUSTOM, (literal), (elements))
/* A plain scope named by a string literal. */
#define BRICKPROF_SCOPE(literal) \
  BRICKPROF__GUARD(BRICKPROF_KIND_SCOPE, BRICKPROF_BRICK_CUSTOM, (literal), 0)
/* A scope of a brickprof_kind with a name built at run time (copied). */
#define BRICKPROF_SCOPE_DYNAMIC(kind, name, arg) BRICKPROF__GUARD_NAMED((kind), (name), (arg))
/* One tile of a cache-blocked loop, of a brickprof_tile_level, over
 * `elements` elements and `bytes` bytes read and written, timed from here
 * to the end of the block. Tiles are not scopes: each is added to its
 * level's count, time, elements and bytes for the innermost open scope (a
 * brick), with no event of its own, so it may stay in an inner loop. */
#define BRICKPROF_TILE(level, elements, bytes) BRICKPROF__TILE_GUARD((level), (elements), (bytes))
#endif

/* C and C++: statements; each push needs a BRICKPROF_POP() in its block. */
#define BRICKPROF_PUSH_LAYER(index) \
  BRICKPROF__PUSH(BRICKPROF_KIND_LAYER, BRICKPROF_BRICK_CUSTOM, 0, (index))
#define BRICKPROF_PUSH_BRICK(brick, elements) \
  BRICKPROF__PUSH(BRICKPROF_KIND_BRICK, (brick), 0, (elements))
#define BRICKPROF_PUSH_BRICK_NAMED(literal, elements) \
  BRICKPROF__PUSH(BRICKPROF_KIND_BRICK, BRICKPROF_BRICK_CUSTOM, (literal), (elements))
#define BRICKPROF_PUSH_SCOPE(literal) \
  BRICKPROF__PUSH(BRICKPROF_KIND_SCOPE, BRICKPROF_BRICK_CUSTOM, (literal), 0)
/* Closes the innermost scope. */
#define BRICKPROF_POP() BRICKPROF__CALL(brickprof_pop())
/* Adds FLOPs and bytes moved to the innermost open scope (for the roofline). */
#define BRICKPROF_WORK(flops, bytes) \
  BRICKPROF__CALL(brickprof_add_work((double)(flops), (double)(bytes)))
/* The machine's peaks as the program measured them (brickprof_set_host_peaks). */
#define BRICKPROF_SET_HOST_PEAKS(gflops, gbps, how) \
  BRICKPROF__CALL(brickprof_set_host_peaks((double)(gflops), (double)(gbps), (how)))
/* Each cache level's read bandwidth as the program measured it (brickprof_set_cache_bandwidth). */
#define BRICKPROF_SET_CACHE_BANDWIDTH(l1_gbps, l2_gbps, l3_gbps) \
  BRICKPROF__CALL(                                               \
      brickprof_set_cache_bandwidth((double)(l1_gbps), (double)(l2_gbps), (double)(l3_gbps)))
/* A digest of a host or device buffer for the innermost open scope (brickprof_checksum). */
#define BRICKPROF_CHECKSUM(name, ptr, count, dtype) \
  BRICKPROF__CALL(brickprof_checksum((name), (ptr), (uint64_t)(count), (dtype)))

/* Memory the program's own allocator (a caching allocator, an arena, a
 * KV-cache pool) hands out of what it reserved, under a pool name such as
 * "kv_cache" (a string the agent copies). The trace then shows both views:
 * bytes reserved from the driver, and bytes used by the program, per pool. */
#define BRICKPROF_MEM_ALLOC(ptr, bytes, pool) \
  BRICKPROF__CALL(brickprof_mem_alloc((ptr), (uint64_t)(bytes), (pool)))
#define BRICKPROF_MEM_FREE(ptr, pool) BRICKPROF__CALL(brickprof_mem_free((ptr), (pool)))
/* The innermost scope's element type and shapes (brickprof_set_shapes). */
#define BRICKPROF_SET_SHAPES(dtype, dims, ranks, n_inputs, out_dims, out_rank) \
  BRICKPROF__CALL(brickprof_set_shapes((dtype), (dims), (ranks), (n_inputs), (out_dims), (out_rank)))

/* The program's own counters and tokens (brickprof_counter, brickprof_tokens). */
#define BRICKPROF_COUNTER(name, value) BRICKPROF__CALL(brickprof_counter((name), (double)(value)))
#define BRICKPROF_TOKENS(n) BRICKPROF__CALL(brickprof_tokens((uint64_t)(n)))

/* C and C++: a tile as two statements (BRICKPROF_TILE):
 *   brickprof_tile t = BRICKPROF_TILE_BEGIN();
 *   ... the tile's work ...
 *   BRICKPROF_TILE_END(t, BRICKPROF_TILE_MICRO, elements, bytes); */
#define BRICKPROF_TILE_BEGIN() BRICKPROF__TILE_BEGIN()
#define BRICKPROF_TILE_END(tile, level, elements, bytes) \
  BRICKPROF__TILE_END((tile), (level), (elements), (bytes))

/* Functions, never compiled out. */
/* Opens a scope with a name the agent copies; 1 if brickprof_pop() must follow. */
static inline int brickprof_push_name(brickprof_kind kind, const char* name, uint64_t arg);
/* Closes the innermost scope. */
static inline void brickprof_pop(void);
/* Adds FLOPs and bytes moved to the innermost open scope. */
static inline void brickprof_add_work(double flops, double bytes);
/* The program's own switch: 1 records (within BRICKPROF_CAPTURE's windows), 0 not. */
static inline void brickprof_set_enabled(int enabled);
/* 1 when an agent is loaded and recording. */
static inline int brickprof_is_enabled(void);
/* The host's peak FLOP/s (GFLOP/s) and memory bandwidth (GB/s, 1e9 B/s) for
 * the CPU roofline, 0 for a figure not measured; `how` (copied, may be NULL)
 * says how they were measured. Each call replaces the last; thread-safe. */
static inline void brickprof_set_host_peaks(double gflops, double gbps, const char* how);
/* The read bandwidth (GB/s, 1e9 B/s) one thread reached over working sets
 * the size of the L1, L2 and L3 caches, 0 for a level not measured:
 * `brickprof report --tiles` sets each tile level's bytes per second against
 * its cache's (macro: L3, midi: L2, micro: L1). Each call replaces the last;
 * thread-safe; an agent older than this header ignores it. */
static inline void brickprof_set_cache_bandwidth(double l1_gbps, double l2_gbps, double l3_gbps);
/* `bytes` at `ptr` handed out by the program's pool `pool` (NULL: "(program)");
 * pair each with a brickprof_mem_free of the same pointer and pool. Each is
 * one event in the trace, with the innermost open scope (and Python line)
 * that made it. Thread-safe; an agent older than this header ignores them. */
static inline void brickprof_mem_alloc(const void* ptr, uint64_t bytes, const char* pool);
static inline void brickprof_mem_free(const void* ptr, const char* pool);
/* Attaches to the innermost open scope the element type `dtype` ("f32",
 * "bf16", "q4_k", ...) and its shapes: `n_inputs` inputs, input i with
 * ranks[i] dims, all of them one after another in `dims`; the output's
 * `out_rank` dims in `out_dims`. Copied; the last call in a scope wins. A
 * matrix product of x[1][4096] by w[4096][4096]:
 *   int64_t dims[] = {1, 4096, 4096, 4096}, out[] = {1, 4096};
 *   uint32_t ranks[] = {2, 2};
 *   brickprof_set_shapes("f32", dims, ranks, 2, out, 2); */
static inline void brickprof_set_shapes(const char* dtype, const int64_t* dims,
                                        const uint32_t* ranks, uint32_t n_inputs,
                                        const int64_t* out_dims, uint32_t out_rank);
/* Attaches to the innermost open scope a digest of an output the program
 * computed: `count` elements of type `dtype` at `ptr`, host or device
 * memory (a device buffer is copied to the host after the context is
 * synchronised, and the copy digested). `dtype` is "f32", "f64", "f16", "bf16", "i32", "i64",
 * "i8", "u8", or NULL or "bytes" (then `count` is in bytes); `name` (copied)
 * tells a scope's outputs apart. The digest (FNV-1a of the bytes, sum,
 * norms, extremes, NaN and Inf counts) is taken on the calling thread before
 * the call returns, so the buffer may change right after; the trace keeps
 * the digest, not the data, and `brickprof diff --outputs` compares two
 * runs' digests scope by scope. An unknown dtype, or a call outside every
 * scope, is left out and counted. Thread-safe; costs one pass over the
 * buffer while the agent records, nothing otherwise. */
static inline void brickprof_checksum(const char* name, const void* ptr, uint64_t count,
                                      const char* dtype);
/* What the program observes about itself: a sample of its counter `name`
 * (copied; an L2 hit rate it measured, a batch size, a queue depth), shown
 * as a track of its own beside the timeline, the value holding until the
 * next sample. A value that is not finite is dropped and counted. */
static inline void brickprof_counter(const char* name, double value);
/* `n` tokens produced now (a prompt's tokens when its prefill ends, 1 per
 * decoded token): the report's tokens per second is the tokens over the
 * time of the outermost scopes they were reported in, its time per token
 * each brick's time over all tokens. Thread-safe; both are recorded on the
 * calling thread under its innermost open scope, and an agent older than
 * this header ignores them. */
static inline void brickprof_tokens(uint64_t n);
/* Starts a tile: reads the clock while the agent records (and has tiles),
 * nothing otherwise. */
static inline brickprof_tile brickprof_tile_begin(void);
/* Ends `tile`: adds it, with its `elements` and `bytes`, to `level`'s
 * figures for the calling thread's innermost open scope. A level that is
 * not a brickprof_tile_level, or a tile outside every scope, is left out and
 * counted. Costs about what a scope's push and pop cost together. */
static inline void brickprof_tile_end(brickprof_tile tile, brickprof_tile_level level,
                                      uint64_t elements, uint64_t bytes);

#ifdef __cplusplus
} /* extern "C" */

#include <initializer_list>
/* C++: the same with lists, e.g. brickprof_set_shapes("f32", {{1, 4096}, {4096, 4096}}, {1, 4096}). */
inline void brickprof_set_shapes(const char* dtype,
                                 std::initializer_list<std::initializer_list<int64_t>> inputs,
                                 std::initializer_list<int64_t> output);
#endif

/* ---- not API: the implementation, an ABI shared with the agent ---------- */
#include "brickprof/detail/impl.h"

#endif /* BRICKPROF_BRICKPROF_H_ */
