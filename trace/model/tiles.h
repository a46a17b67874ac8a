// Tiles: the blocks of a cache-blocked operation (BRICKPROF_TILE), at three
// levels, added up per scope occurrence and thread as the program ran
// (count, time, elements, bytes), with no event per tile. `report --tiles`
// sets each level's bytes per second against its cache's bandwidth
// (analysis/analyses/tiles.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trace/model/ids.h"

namespace brickprof {

// brickprof_tile_level's values, in the same order.
enum class TileLevel : uint8_t { kMacro, kMidi, kMicro };
inline constexpr uint32_t kTileLevels = 3;

// One level's tiles under one node (the innermost scope open when they
// ended) on one thread.
struct TileStats {
  uint32_t node = kNoNode;
  uint32_t thread = 0;
  TileLevel level = TileLevel::kMacro;
  uint64_t count = 0;
  int64_t total_ns = 0;  // their times added up
  uint64_t elements = 0;
  uint64_t bytes = 0;
};

// "macro", "midi", "micro", as the trace and the reports name them.
std::string_view tile_level_name(TileLevel level);
std::optional<TileLevel> parse_tile_level(std::string_view name);

}  // namespace brickprof
