// What a program sees when it includes only <brickprof/brickprof.h> (as
// libcamera's test/public-api.cpp checks its own public header): it builds
// as C++11 against exactly the documented API, and none of the agent's
// internals come with it. public_api_names.py lists every name the header
// declares; this program is the compiler's view of the same promise.
#include <brickprof/brickprof.h>

#include <cstdio>

// The header declares nothing called `brickprof` (no C++ namespace of the
// agent's, brickprof::agent or any other), or this would not compile.
int brickprof = 0;

// The spellings that are not the API's any more.
#if defined(BRICKPROF_ADD_WORK) || defined(BRICKPROF_ABI_VERSION) || \
    defined(BRICKPROF_FAST_INLINE) || defined(BRICKPROF_RECORD_LAYOUT)
#error "the public header defines a name that is not API"
#endif

namespace {

// Every public macro and function, as a program would use them; without an
// agent each is a no-op that says so.
int use_the_api() {
  int failures = 0;
  {
    BRICKPROF_LAYER(0);
    BRICKPROF_BRICK(BRICKPROF_BRICK_RMS_NORM, 4096);
    BRICKPROF_WORK(3 * 4096, 8 * 4096);
  }
  {
    BRICKPROF_BRICK_NAMED("KvCacheWrite", 64);
    BRICKPROF_SCOPE("sampling loop");
    BRICKPROF_SCOPE_DYNAMIC(BRICKPROF_KIND_SCOPE, "made at run time", 0);
  }
  BRICKPROF_PUSH_LAYER(1);
  BRICKPROF_PUSH_BRICK(BRICKPROF_BRICK_LM_HEAD, 8192);
  BRICKPROF_PUSH_BRICK_NAMED("ResidualAdd", 2048);
  BRICKPROF_PUSH_SCOPE("c style");
  BRICKPROF_POP();
  BRICKPROF_POP();
  BRICKPROF_POP();
  BRICKPROF_POP();
  BRICKPROF_SET_HOST_PEAKS(500, 20, "measured");
  BRICKPROF_SET_CACHE_BANDWIDTH(200, 100, 50);
  brickprof_set_cache_bandwidth(0, 0, 0);
  {
    BRICKPROF_BRICK(BRICKPROF_BRICK_UP_PROJECTION, 4096);
    static const int64_t dims[] = {1, 4096, 4096, 4096}, out[] = {1, 4096};
    static const uint32_t ranks[] = {2, 2};
    BRICKPROF_SET_SHAPES("f32", dims, ranks, 2, out, 2);
    brickprof_set_shapes("q4_k", dims, ranks, 2, out, 2);
    brickprof_set_shapes("f32", {{1, 4096}, {4096, 4096}}, {1, 4096});
  }
  static char arena[256];
  BRICKPROF_MEM_ALLOC(arena, sizeof arena, "kv_cache");
  BRICKPROF_MEM_FREE(arena, "kv_cache");
  brickprof_mem_alloc(arena + 64, 64, nullptr);
  brickprof_mem_free(arena + 64, nullptr);
  if (brickprof_push_name(BRICKPROF_KIND_BRICK, "Rope", 64) != 0) ++failures;
  brickprof_pop();
  brickprof_add_work(1, 2);
  brickprof_set_enabled(0);
  brickprof_set_host_peaks(0, 0, nullptr);
  const float out[2] = {1.0f, 2.0f};
  BRICKPROF_CHECKSUM("out", out, 2, "f32");
  brickprof_checksum("out", out, 2, "f32");
  brickprof_counter("l2_hit_rate", 0.5);
  brickprof_tokens(1);
  BRICKPROF_COUNTER("queue_depth", 3);
  BRICKPROF_TOKENS(2);
  {
    BRICKPROF_BRICK(BRICKPROF_BRICK_DOWN_PROJECTION, 4096);
    BRICKPROF_TILE(BRICKPROF_TILE_MACRO, 4096, 1 << 20);
    brickprof_tile tile = BRICKPROF_TILE_BEGIN();
    BRICKPROF_TILE_END(tile, BRICKPROF_TILE_MIDI, 64, 256);
    tile = brickprof_tile_begin();
    if (tile.how != 0) ++failures;  // no agent: no clock read
    brickprof_tile_end(tile, BRICKPROF_TILE_MICRO, 8, 32);
    static_assert(BRICKPROF_TILE_LEVELS == BRICKPROF_TILE_MICRO + 1,
                  "the count follows the last level");
  }
  if (brickprof_is_enabled() != 0) ++failures;
  brickprof_kind kind = BRICKPROF_KIND_LAYER;
  brickprof_brick brick = BRICKPROF_BRICK_CUSTOM;
  static_assert(BRICKPROF_BRICK_COUNT == BRICKPROF_BRICK_SAMPLING + 1,
                "the count follows the last well-known brick");
  return failures + (kind == BRICKPROF_KIND_LAYER && brick == BRICKPROF_BRICK_CUSTOM ? 0 : 1);
}

}  // namespace

int main() {
  int failures = use_the_api() + (brickprof != 0);
  std::printf("public API %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
