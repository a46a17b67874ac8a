// The row blocking of the CPU GEMV kernels, marked as brickprof tiles: a
// pool chunk's rows (the macro tile, cpu_backend.cpp) run in midi tiles of
// kMidiTileRows rows and those in micro tiles of kMicroTileRows. For a
// 2048-wide Q4_K matrix a micro tile is 18 KB of weights (L1), a midi tile
// 72 KB (L2). The rows run in order in one call, so a kernel's prefetch
// stream runs on across tiles (cpu_backend.h on why chunks stay large).
// Only the pool's caller marks tiles: a worker has no scope open on its
// thread, so its tiles would count for nothing (and opening one per chunk
// there would add nodes on every worker to every bricklayer trace).
// Included by the SIMD translation units: everything here has internal
// linkage and uses only the header's C functions (static), so no inline
// code built for one instruction set is shared with another.
#pragma once

#include <brickprof/brickprof.h>

#include <cstdint>

namespace bricklayer {

inline constexpr int64_t kMidiTileRows = 64;
inline constexpr int64_t kMicroTileRows = 16;

// What one row of a GEMV reads and writes: `k` weights of `weight_bytes`
// bytes, `m` activation rows of `x_row_bytes` each and `m` results.
struct GemvRow {
  int64_t k;
  int64_t weight_bytes;
  int m;
  int64_t x_row_bytes;
  uint64_t elements() const { return static_cast<uint64_t>(k) * static_cast<uint64_t>(m); }
  uint64_t bytes() const { return static_cast<uint64_t>(weight_bytes + m * (x_row_bytes + 4)); }
};

// False on a pool worker (cpu_backend.cpp; not inline, so the SIMD units
// share no code with it).
bool tiles_on_this_thread();

namespace {

// Calls row(r) for every r in [r0, r1), tile by tile.
template <typename Row>
inline void tiled_rows(int64_t r0, int64_t r1, const GemvRow& shape, Row row) {
  if (!tiles_on_this_thread()) {
    for (int64_t r = r0; r < r1; ++r) row(r);
    return;
  }
  for (int64_t a = r0; a < r1; a += kMidiTileRows) {
    const int64_t a1 = a + kMidiTileRows < r1 ? a + kMidiTileRows : r1;
    const brickprof_tile midi = brickprof_tile_begin();
    for (int64_t b = a; b < a1; b += kMicroTileRows) {
      const int64_t b1 = b + kMicroTileRows < a1 ? b + kMicroTileRows : a1;
      const brickprof_tile micro = brickprof_tile_begin();
      for (int64_t r = b; r < b1; ++r) row(r);
      const uint64_t rows = static_cast<uint64_t>(b1 - b);
      brickprof_tile_end(micro, BRICKPROF_TILE_MICRO, rows * shape.elements(),
                         rows * shape.bytes());
    }
    const uint64_t rows = static_cast<uint64_t>(a1 - a);
    brickprof_tile_end(midi, BRICKPROF_TILE_MIDI, rows * shape.elements(), rows * shape.bytes());
  }
}

}  // namespace

}  // namespace bricklayer
