#include "trace/model/tiles.h"

namespace brickprof {

namespace {
constexpr std::string_view kNames[kTileLevels] = {"macro", "midi", "micro"};
}  // namespace

std::string_view tile_level_name(TileLevel level) {
  return kNames[static_cast<uint32_t>(level) % kTileLevels];
}

std::optional<TileLevel> parse_tile_level(std::string_view name) {
  for (uint32_t i = 0; i < kTileLevels; ++i)
    if (kNames[i] == name) return static_cast<TileLevel>(i);
  return std::nullopt;
}

}  // namespace brickprof
