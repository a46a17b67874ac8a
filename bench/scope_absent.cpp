// Push+pop through the scope API in a translation unit whose lazy binding
// resolved before any agent was loaded: the "absent" cost.
#include <brickprof/brickprof.h>

#include "bench/scope_loops.h"

namespace {
char g_block[64];
const int64_t kDims[] = {1, 4096, 4096, 4096}, kOut[] = {1, 4096};
const uint32_t kRanks[] = {2, 2};
}  // namespace

__attribute__((noinline)) void scope_pairs_absent(long n) {
  for (long i = 0; i < n; ++i) {
    BRICKPROF_SCOPE("absent");
    asm volatile("" ::: "memory");
  }
}

__attribute__((noinline)) void mem_pairs_absent(long n) {
  for (long i = 0; i < n; ++i) {
    brickprof_mem_alloc(g_block, sizeof g_block, "kv_cache");
    brickprof_mem_free(g_block, "kv_cache");
    asm volatile("" ::: "memory");
  }
}

__attribute__((noinline)) void tiles_absent(long n) {
  BRICKPROF_BRICK_NAMED("tiled", n);
  for (long i = 0; i < n; ++i) {
    BRICKPROF_TILE(BRICKPROF_TILE_MICRO, 64, 256);
    asm volatile("" ::: "memory");
  }
}

__attribute__((noinline)) void shapes_absent(long n) {
  for (long i = 0; i < n; ++i) {
    brickprof_set_shapes("f32", kDims, kRanks, 2, kOut, 2);
    asm volatile("" ::: "memory");
  }
}
