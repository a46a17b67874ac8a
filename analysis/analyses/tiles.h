// Tiles (trace/model/tiles.h) per brick and level, as `report --tiles`
// shows them: how many, their time, and the elements and bytes per second
// they reached, against the bandwidth of the cache each level is sized
// for when the trace carries it.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// One brick's tiles of one level, over every occurrence and thread.
struct BrickTiles {
  StringId brick = 0;  // the nearest enclosing brick's name (else the tiles' own scope)
  TileLevel level = TileLevel::kMacro;
  uint64_t count = 0;
  int64_t total_ns = 0;
  uint64_t elements = 0;
  uint64_t bytes = 0;
  uint64_t nodes = 0;  // occurrences of the brick that had such tiles
  double elements_per_second() const;
  double bytes_per_second() const;
};

// The cache a level's tiles are sized for: macro L3, midi L2, micro L1
// (1-based level of the cache).
int tile_cache_level(TileLevel level);

struct TileReport {
  std::vector<BrickTiles> rows;  // by brick in order of first tile, then level
  // The host's L1, L2, L3 read bandwidths (GB/s) from the trace's "cpu"
  // entry (brickprof_set_cache_bandwidth); 0: not recorded.
  double cache_gbps[3] = {0, 0, 0};
  // A row's bytes per second over its level's cache bandwidth; 0 when that
  // bandwidth is not recorded.
  double of_cache(const BrickTiles& row) const;
};

TileReport analyze_tiles(const Trace& trace);

}  // namespace brickprof
