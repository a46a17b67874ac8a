/* Not API: the binary contract between <brickprof/brickprof.h> and the
 * agent (libbrickprof.so): the function table, the per-site metadata and
 * the record layout the header's inline fast path writes. Programs built
 * against any earlier version of these definitions keep working, so fields
 * are only appended and layouts change only with a version bump. */
#ifndef BRICKPROF__ABI_H
#define BRICKPROF__ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of brickprof__api_table or
 * brickprof__site. 2: the table gained the recording fast path. */
#define BRICKPROF__ABI_VERSION 2u

/* Static metadata of one call site. The macros make one per site, so a push
 * passes a pointer instead of a string. `name` is NULL for well-known bricks
 * and for layers; `cookie` belongs to the agent (it caches the interned name
 * there) and must start at 0. */
typedef struct brickprof__site {
  const char* name;
  int32_t kind;  /* brickprof_kind */
  int32_t brick; /* brickprof_brick, or BRICKPROF_BRICK_CUSTOM */
  uint32_t cookie;
  uint32_t reserved;
} brickprof__site;

/* ---- the recording fast path ----------------------------------------------
 * A push or pop is two timestamps and a store, so a call into the agent would
 * cost more than the work. While the agent says so (`fast_state` below), the
 * header appends the record to the calling thread's buffer itself; anything
 * unusual (first use on a thread, a full buffer, sync modes, no cycle
 * counter) goes through the table's functions instead. */
/* A thread's buffer is a run of 8-byte words; a record is a tag (site id |
 * type << 32), the cycle counter, then its payload: a push carries its arg
 * (3 words), a pop nothing (2 words). */
#define BRICKPROF__RECORD_PUSH 0ull
#define BRICKPROF__RECORD_POP 1ull
#define BRICKPROF__PUSH_WORDS 3
#define BRICKPROF__POP_WORDS 2
#define BRICKPROF__RECORD_LAYOUT 2u /* bumped whenever the above changes */
/* Tiles (brickprof_tile_begin/end) add up in place, in a record of their
 * own: the tag (type << 32), the cycle counter when its first tile ended, then for
 * each brickprof_tile_level its count, ticks, elements and bytes. The
 * header writes one only to an agent whose table has `tile` (which knows
 * it), and adds a tile to it while it is still its thread's last record, so
 * a run of tiles with no push or pop between them is one record, under the
 * scope open there. */
#define BRICKPROF__RECORD_TILE 12ull
#define BRICKPROF__TILE_LEVEL_WORDS 4
#define BRICKPROF__TILE_WORDS (2 + 3 * BRICKPROF__TILE_LEVEL_WORDS)

/* The head of one thread's buffer: the next free record and the end of the
 * current chunk. Only its thread writes `cur`; the agent reads it at exit. */
typedef struct brickprof__thread_buffer {
  uint64_t* cur;
  uint64_t* end;
} brickprof__thread_buffer;

#define BRICKPROF__FAST_OFF 0u    /* disabled: push and pop do nothing */
#define BRICKPROF__FAST_INLINE 1u /* the header may append records itself */
#define BRICKPROF__FAST_CALL 2u   /* recording, but through the functions */

/* The agent's function table. Fields are only ever appended; `size` says how
 * many this agent has, and the header checks it before calling one that
 * came later than the fast path (BRICKPROF__HAS), so an older agent works. */
typedef struct brickprof__api_table {
  uint32_t abi_version;
  uint32_t size;
  /* Opens a scope; `arg` is the layer index for layers, else an element
   * count. Returns 1 if a pop must follow (recorded, or counted inside a
   * BRICKPROF_CAPTURE trigger scope), 0 if not. */
  int (*push)(brickprof__site* site, uint64_t arg);
  /* Same, with a name the agent copies (for names built at run time). */
  int (*push_name)(int32_t kind, const char* name, uint64_t arg);
  void (*pop)(void);
  /* Adds FLOPs and bytes moved to the innermost open scope (roofline). */
  void (*add_work)(double flops, double bytes);
  void (*set_enabled)(int enabled);
  int (*is_enabled)(void);
  /* Fast path: BRICKPROF__FAST_* (read on every push and pop, so it sits in
   * the table's first cache line), the record layout the agent
   * expects, and the calling thread's buffer (registers the thread; NULL if
   * it cannot record). */
  volatile uint32_t fast_state;
  uint32_t record_layout;
  brickprof__thread_buffer* (*thread_buffer)(void);
  /* ---- appended; check `size` first ---- */
  /* The host's peak FLOP/s (GFLOP/s) and memory bandwidth (GB/s, 1e9 B/s)
   * as the program measured them; 0 = not measured. `how` (copied, may be
   * NULL) says how. Each call replaces the last; thread-safe. The trace
   * gets a devices[] entry "cpu" with them. */
  void (*set_host_peaks)(double gflops, double gbps, const char* how);
  /* The program's allocator handed out `bytes` at `ptr` from its pool named
   * `pool` (copied; NULL: "(program)"), or took them back (brickprof_mem_*). */
  void (*mem_alloc)(const void* ptr, uint64_t bytes, const char* pool);
  void (*mem_free)(const void* ptr, const char* pool);
  /* The innermost open scope's element type and shapes: input i has
   * ranks[i] dims, one after another in `dims`; the output has out_rank
   * dims in `out_dims` (brickprof_set_shapes). */
  void (*set_shapes)(const char* dtype, const int64_t* dims, const uint32_t* ranks,
                     uint32_t n_inputs, const int64_t* out_dims, uint32_t out_rank);
  /* A digest of `count` elements of type `dtype` (NULL: bytes) at `ptr`, in
   * host memory, for the innermost open scope, under `name` (copied). */
  void (*checksum)(const char* name, const void* ptr, uint64_t count, const char* dtype);
  /* A sample of the program's counter `name` (copied), and tokens produced
   * (brickprof_counter, brickprof_tokens). */
  void (*counter)(const char* name, double value);
  void (*tokens)(uint64_t n);
  /* Tiles, where the header cannot write their record itself: the
   * recorder's clock now, and one tile of `level` (brickprof_tile_level)
   * that took `ticks` of it, added to the calling thread's tile record. */
  uint64_t (*tile_ticks)(void);
  void (*tile)(int32_t level, uint64_t ticks, uint64_t elements, uint64_t bytes);
  /* The read bandwidth (GB/s) one thread measured with working sets of the
   * L1, L2 and L3 caches' sizes; 0 = not measured. Each call replaces the
   * last; thread-safe. The trace's "cpu" devices[] entry gets them. */
  void (*set_cache_bandwidth)(double l1_gbps, double l2_gbps, double l3_gbps);
} brickprof__api_table;

/* Whether `api` has `field` (an agent older than this header may not). */
#define BRICKPROF__HAS(api, field) \
  ((api)->size >= offsetof(brickprof__api_table, field) + sizeof((api)->field))

/* The agent exports `brickprof_get_api` of this type. It returns NULL if
 * `abi_version` is not supported (an agent serves every version from 1 to
 * its own). */
typedef const brickprof__api_table* (*brickprof__get_api_fn)(uint32_t abi_version);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BRICKPROF__ABI_H */
