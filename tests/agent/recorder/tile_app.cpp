// A program that marks the tiles of a blocked loop, for tile_test.cpp. The
// blocking is fixed, so the test knows every count, element and byte:
//   tile_app         Layer 0 > GateProjection (1 << 20 elements): 4 macro tiles, each
//                    8 midi tiles, each 16 micro tiles (RAII, BRICKPROF_TILE); a scope
//                    "epilogue" inside the brick after the second macro tile with 3
//                    micro tiles (C API); then one tile outside every scope and one of
//                    a level that is not one (both left out, and said); a second
//                    thread's brick "worker" with 5 midi tiles; cache bandwidths L1 100,
//                    L2 50 GB/s, L3 not measured
//   tile_app many N  N micro tiles in one brick "many" (in place: no event per tile)
#include <brickprof/brickprof.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

// Work the compiler cannot drop, so a tile takes some time.
volatile uint64_t g_sink = 0;
void work(int n) {
  uint64_t x = g_sink;
  for (int i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  g_sink = x;
}

void micro_tiles(int n) {
  for (int i = 0; i < n; ++i) {
    brickprof_tile t = BRICKPROF_TILE_BEGIN();
    work(20);
    BRICKPROF_TILE_END(t, BRICKPROF_TILE_MICRO, 64, 256);
  }
}

void worker() {
  BRICKPROF_BRICK_NAMED("worker", 5);
  for (int i = 0; i < 5; ++i) {
    BRICKPROF_TILE(BRICKPROF_TILE_MIDI, 100, 400);
    work(50);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "many") == 0) {
    const long n = std::atol(argv[2]);
    BRICKPROF_BRICK_NAMED("many", n);
    for (long i = 0; i < n; ++i) {
      BRICKPROF_TILE(BRICKPROF_TILE_MICRO, 1, 4);
    }
    return 0;
  }
  {
    BRICKPROF_LAYER(0);
    BRICKPROF_BRICK(BRICKPROF_BRICK_GATE_PROJECTION, 1 << 20);
    for (int macro = 0; macro < 4; ++macro) {
      BRICKPROF_TILE(BRICKPROF_TILE_MACRO, 1 << 18, 1 << 20);
      for (int midi = 0; midi < 8; ++midi) {
        BRICKPROF_TILE(BRICKPROF_TILE_MIDI, 1 << 15, 1 << 17);
        micro_tiles(16);
      }
      if (macro == 1) {
        BRICKPROF_SCOPE("epilogue");
        micro_tiles(3);
      }
    }
  }
  {
    BRICKPROF_TILE(BRICKPROF_TILE_MACRO, 1, 1);  // outside every scope
  }
  {
    BRICKPROF_BRICK_NAMED("bad level", 1);
    brickprof_tile t = brickprof_tile_begin();
    brickprof_tile_end(t, static_cast<brickprof_tile_level>(7), 1, 1);
  }
  std::thread(worker).join();
  BRICKPROF_SET_CACHE_BANDWIDTH(100, 50, 0);  // L3 not measured
  return 0;
}
