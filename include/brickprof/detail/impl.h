/* Not API: the bodies of the functions and macros <brickprof/brickprof.h>
 * declares. Each goes through the agent's table (detail/bind.h), and pushes
 * and pops through the inline path (detail/fast_path.h). */
#ifndef BRICKPROF__IMPL_H
#define BRICKPROF__IMPL_H

#ifndef BRICKPROF_BRICKPROF_H_
#error "include <brickprof/brickprof.h>, not its detail headers"
#endif

#include <stdint.h>

#include "brickprof/detail/abi.h"
#include "brickprof/detail/bind.h"
#include "brickprof/detail/fast_path.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the scope of a call site; 1 if a BRICKPROF_POP() must follow. */
static inline int brickprof__push_site(brickprof__site* site, uint64_t arg) {
  const brickprof__api_table* api = brickprof__api();
  return api ? brickprof__push_fast(api, site, arg) != 0 : 0;
}

static inline int brickprof_push_name(brickprof_kind kind, const char* name, uint64_t arg) {
  const brickprof__api_table* api = brickprof__api();
  return api ? api->push_name((int32_t)kind, name, arg) : 0;
}
static inline void brickprof_pop(void) {
  const brickprof__api_table* api = brickprof__api();
  if (api) brickprof__pop_fast(api);
}
static inline void brickprof_add_work(double flops, double bytes) {
  const brickprof__api_table* api = brickprof__api();
  if (api) api->add_work(flops, bytes);
}
static inline void brickprof_set_enabled(int enabled) {
  const brickprof__api_table* api = brickprof__api();
  if (api) api->set_enabled(enabled);
}
static inline int brickprof_is_enabled(void) {
  const brickprof__api_table* api = brickprof__api();
  return api ? api->is_enabled() : 0;
}
static inline void brickprof_set_host_peaks(double gflops, double gbps, const char* how) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, set_host_peaks)) api->set_host_peaks(gflops, gbps, how);
}
static inline void brickprof_set_cache_bandwidth(double l1_gbps, double l2_gbps, double l3_gbps) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, set_cache_bandwidth))
    api->set_cache_bandwidth(l1_gbps, l2_gbps, l3_gbps);
}
static inline void brickprof_checksum(const char* name, const void* ptr, uint64_t count,
                                      const char* dtype) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, checksum)) api->checksum(name, ptr, count, dtype);
}

static inline void brickprof_mem_alloc(const void* ptr, uint64_t bytes, const char* pool) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, mem_alloc)) api->mem_alloc(ptr, bytes, pool);
}
static inline void brickprof_mem_free(const void* ptr, const char* pool) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, mem_free)) api->mem_free(ptr, pool);
}
static inline void brickprof_set_shapes(const char* dtype, const int64_t* dims,
                                        const uint32_t* ranks, uint32_t n_inputs,
                                        const int64_t* out_dims, uint32_t out_rank) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, set_shapes))
    api->set_shapes(dtype, dims, ranks, n_inputs, out_dims, out_rank);
}
static inline void brickprof_counter(const char* name, double value) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, counter)) api->counter(name, value);
}
static inline void brickprof_tokens(uint64_t n) {
  const brickprof__api_table* api = brickprof__api();
  if (api && BRICKPROF__HAS(api, tokens)) api->tokens(n);
}

static inline brickprof_tile brickprof__tile_none(void) {
  brickprof_tile none = {0, 0};
  return none;
}
static inline brickprof_tile brickprof_tile_begin(void) {
  const brickprof__api_table* api = brickprof__api();
  brickprof_tile none = {0, 0};
  return api ? brickprof__tile_begin_fast(api) : none;
}
static inline void brickprof_tile_end(brickprof_tile tile, brickprof_tile_level level,
                                      uint64_t elements, uint64_t bytes) {
  if (tile.how) brickprof__tile_end_fast(brickprof__api(), tile, (int32_t)level, elements, bytes);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#define BRICKPROF__CAT2(a, b) a##b
#define BRICKPROF__CAT(a, b) BRICKPROF__CAT2(a, b)
#ifdef __COUNTER__
#define BRICKPROF__UNIQUE(prefix) BRICKPROF__CAT(prefix, __COUNTER__)
#else
#define BRICKPROF__UNIQUE(prefix) BRICKPROF__CAT(prefix, __LINE__)
#endif

/* The public macros expand to these, which BRICKPROF_DISABLE empties. */
#ifndef BRICKPROF_DISABLE
/* A statement that pushes a call site's static metadata. */
#define BRICKPROF__PUSH(kind, brick, name, arg)                                    \
  do {                                                                             \
    static brickprof__site brickprof__site_here = {(name), (kind), (brick), 0, 0}; \
    (void)brickprof__push_site(&brickprof__site_here, (uint64_t)(arg));            \
  } while (0)
#define BRICKPROF__CALL(call) (call)
#define BRICKPROF__TILE_BEGIN() brickprof_tile_begin()
#define BRICKPROF__TILE_END(tile, level, elements, bytes) \
  brickprof_tile_end((tile), (level), (uint64_t)(elements), (uint64_t)(bytes))
#else
#define BRICKPROF__PUSH(kind, brick, name, arg) ((void)0)
#define BRICKPROF__CALL(call) ((void)0)
#define BRICKPROF__TILE_BEGIN() brickprof__tile_none()
#define BRICKPROF__TILE_END(tile, level, elements, bytes) ((void)(tile))
#endif

#ifdef __cplusplus

/* Closes the scope it opened, if the agent recorded it. */
class brickprof__scope_guard {
 public:
  brickprof__scope_guard(brickprof__site* site, uint64_t arg) : api_(brickprof__api()), how_(0) {
    if (api_) how_ = brickprof__push_fast(api_, site, arg);
  }
  brickprof__scope_guard(brickprof_kind kind, const char* name, uint64_t arg)
      : api_(brickprof__api()), how_(0) {
    if (api_) how_ = api_->push_name(static_cast<int32_t>(kind), name, arg);
  }
  ~brickprof__scope_guard() {
    if (how_ == BRICKPROF__INLINE)
      brickprof__pop_inline(api_);
    else if (how_)
      api_->pop();
  }
  brickprof__scope_guard(const brickprof__scope_guard&) = delete;
  brickprof__scope_guard& operator=(const brickprof__scope_guard&) = delete;

 private:
  const brickprof__api_table* api_;
  int how_; /* what brickprof__push_fast returned */
};

/* Ends its tile (brickprof_tile_end) at the end of the block. */
class brickprof__tile_guard {
 public:
  brickprof__tile_guard(brickprof_tile_level level, uint64_t elements, uint64_t bytes)
      : tile_(brickprof_tile_begin()), level_(level), elements_(elements), bytes_(bytes) {}
  ~brickprof__tile_guard() { brickprof_tile_end(tile_, level_, elements_, bytes_); }
  brickprof__tile_guard(const brickprof__tile_guard&) = delete;
  brickprof__tile_guard& operator=(const brickprof__tile_guard&) = delete;

 private:
  brickprof_tile tile_;
  brickprof_tile_level level_;
  uint64_t elements_;
  uint64_t bytes_;
};

/* The lists laid out as the C call takes them: on the stack up to
 * BRICKPROF__SHAPE_STACK inputs and dims, malloc'ed past that (nothing
 * thrown into the program). */
#define BRICKPROF__SHAPE_STACK 16
inline void brickprof_set_shapes(const char* dtype,
                                 std::initializer_list<std::initializer_list<int64_t>> inputs,
                                 std::initializer_list<int64_t> output) {
  const brickprof__api_table* api = brickprof__api();
  if (!api || !BRICKPROF__HAS(api, set_shapes)) return;
  size_t total = 0;
  for (std::initializer_list<int64_t> input : inputs) total += input.size();
  int64_t dims_here[BRICKPROF__SHAPE_STACK];
  uint32_t ranks_here[BRICKPROF__SHAPE_STACK];
  const bool fits = total <= BRICKPROF__SHAPE_STACK && inputs.size() <= BRICKPROF__SHAPE_STACK;
  int64_t* dims = dims_here;
  uint32_t* ranks = ranks_here;
  if (!fits) {
    dims = static_cast<int64_t*>(malloc((total ? total : 1) * sizeof(int64_t)));
    ranks = static_cast<uint32_t*>(malloc((inputs.size() ? inputs.size() : 1) * sizeof(uint32_t)));
  }
  if (!dims || !ranks) { /* no memory: the shapes are not worth the program's failure */
    free(dims);
    free(ranks);
    return;
  }
  size_t d = 0, i = 0;
  for (std::initializer_list<int64_t> input : inputs) {
    ranks[i++] = static_cast<uint32_t>(input.size());
    for (int64_t dim : input) dims[d++] = dim;
  }
  api->set_shapes(dtype, dims, ranks, static_cast<uint32_t>(inputs.size()), output.begin(),
                  static_cast<uint32_t>(output.size()));
  if (!fits) {
    free(dims);
    free(ranks);
  }
}

#ifndef BRICKPROF_DISABLE
/* A guard over a call site's static metadata, until the end of the block. */
#define BRICKPROF__GUARD(kind, brick, name, arg) \
  BRICKPROF__GUARD_AT(BRICKPROF__UNIQUE(brickprof__site_), kind, brick, name, arg)
#define BRICKPROF__GUARD_AT(site, kind, brick, name, arg)        \
  static brickprof__site site = {(name), (kind), (brick), 0, 0}; \
  ::brickprof__scope_guard BRICKPROF__CAT(site, _guard)(&site, static_cast<uint64_t>(arg))
/* A guard over a name the agent copies. */
#define BRICKPROF__GUARD_NAMED(kind, name, arg) \
  ::brickprof__scope_guard BRICKPROF__UNIQUE(brickprof__guard_)((kind), (name), (arg))
#define BRICKPROF__TILE_GUARD(level, elements, bytes)          \
  ::brickprof__tile_guard BRICKPROF__UNIQUE(brickprof__tile_)( \
      (level), static_cast<uint64_t>(elements), static_cast<uint64_t>(bytes))
#else
#define BRICKPROF__GUARD(kind, brick, name, arg) ((void)0)
#define BRICKPROF__GUARD_NAMED(kind, name, arg) ((void)0)
#define BRICKPROF__TILE_GUARD(level, elements, bytes) ((void)0)
#endif

#endif /* __cplusplus */

#endif /* BRICKPROF__IMPL_H */
