// The `report --tiles` view: each brick's tiles by level (tiles.h): how
// many, their time, and the elements and bytes per second they reached.
#include <algorithm>
#include <string>

#include "analysis/analyses/tiles.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

TileReport compute(const Trace& t, const ViewSettings&) { return analyze_tiles(t); }

// "41.2% of L1", or "-" when the trace has no bandwidth for that cache.
std::string of_cache(const TileReport& r, const BrickTiles& row) {
  const double share = r.of_cache(row);
  if (share <= 0) return "-";
  return format_fixed(share * 100, 1) + "% of L" + std::to_string(tile_cache_level(row.level));
}

void text(const Trace& t, const TileReport& r, std::ostream& out) {
  if (r.rows.empty()) {
    out << "Tiles: none recorded (BRICKPROF_TILE, brickprof_tile_begin/end)\n";
    return;
  }
  const bool caches = r.cache_gbps[0] > 0 || r.cache_gbps[1] > 0 || r.cache_gbps[2] > 0;
  size_t width = 5;
  for (const BrickTiles& row : r.rows)
    width = std::max(width, printable(t.strings.view(row.brick)).size());
  out << "Tiles (each brick's cache-blocked loop, by level: macro for L3, midi for L2, micro for "
         "L1):\n"
      << pad_right("Brick", width) << pad_right("  Level", 8) << pad_left("Tiles", 11)
      << pad_left("Time", 11) << pad_left("per tile", 11) << pad_left("elements/s", 12)
      << pad_left("bytes/s", 13) << pad_left("of cache", 16) << "\n"
      << std::string(width + 82, '-') << "\n";
  StringId last = 0;
  bool first = true;
  for (const BrickTiles& row : r.rows) {
    const bool same = !first && row.brick == last;
    const int64_t per_tile =
        row.count ? static_cast<int64_t>(static_cast<double>(row.total_ns) / row.count + 0.5) : 0;
    out << pad_right(same ? "" : printable(t.strings.view(row.brick)), width) << "  "
        << pad_right(tile_level_name(row.level), 6) << pad_left(std::to_string(row.count), 11)
        << pad_left(format_duration(row.total_ns), 11) << pad_left(format_duration(per_tile), 11)
        << pad_left(format_rate(row.elements_per_second()), 12)
        << pad_left(format_rate(row.bytes_per_second(), "B"), 13) << pad_left(of_cache(r, row), 16)
        << "\n";
    last = row.brick;
    first = false;
  }
  if (caches) {
    out << "Cache read bandwidth, one thread, as the program measured it: L1 "
        << format_rate(r.cache_gbps[0] * 1e9, "B") << ", L2 "
        << format_rate(r.cache_gbps[1] * 1e9, "B") << ", L3 "
        << format_rate(r.cache_gbps[2] * 1e9, "B") << "\n"
        << "(a level's bytes/s is per thread: its bytes over its tiles' own time)\n";
  } else {
    out << "No cache bandwidths in the trace (brickprof_set_cache_bandwidth; bricklayer measures "
           "them): \"of cache\" left blank\n";
  }
}

void json(const Trace& t, const TileReport& r, JsonWriter& w) {
  w.begin_object().key("bricks").begin_array();
  for (const BrickTiles& row : r.rows) {
    w.newline().begin_object().field("name", t.strings.view(row.brick));
    w.field("level", tile_level_name(row.level)).field("count", row.count);
    w.field("total_ns", row.total_ns).field("elements", row.elements).field("bytes", row.bytes);
    w.field("occurrences", row.nodes);
    w.field("elements_per_second", row.elements_per_second());
    w.field("bytes_per_second", row.bytes_per_second());
    w.field("cache", "L" + std::to_string(tile_cache_level(row.level)));
    if (r.of_cache(row) > 0) w.field("of_cache", r.of_cache(row));
    w.end_object();
  }
  w.end_array();
  w.key("cache_gbps").begin_array();
  for (double gbps : r.cache_gbps) w.value(gbps);
  w.end_array().end_object().newline();
}

}  // namespace

extern constinit const View kTilesView = make_view<compute, text, json>(
    "tiles", "Each brick's tiles by level (BRICKPROF_TILE): count, time, elements/s and bytes/s",
    false);

}  // namespace brickprof
