// Reader of the trace's "tiles" section (trace/model/tiles.h): one entry per
// node, thread and level; nodes are file ids, resolved once the nodes are
// read, as the memory section's.
#include "trace/json/trace_json_values.h"

namespace brickprof::json_read {

void read_tiles(od::array arr, Trace& t, std::vector<uint64_t>& nodes, Cursor& c) {
  c.section = "tiles";
  c.index = 0;
  for (auto element : arr) {
    TileStats s;
    uint64_t node = kNoFileId;
    bool has_level = false;
    for (auto f : od::object(element.get_object())) {
      const std::string_view k = f.unescaped_key();
      c.key = k;
      od::value v = f.value();
      if (k == "node") {
        node = get_uint(v, c);
      } else if (k == "thread") {
        s.thread = static_cast<uint32_t>(get_uint(v, c));
      } else if (k == "level") {
        const std::optional<TileLevel> level = parse_tile_level(get_string(v, c));
        if (!level) fail(c.describe() + ": not macro, midi or micro");
        s.level = *level;
        has_level = true;
      } else if (k == "count") {
        s.count = get_uint(v, c);
      } else if (k == "total_ns") {
        s.total_ns = get_time(v, c);
      } else if (k == "elements") {
        s.elements = get_uint(v, c);
      } else if (k == "bytes") {
        s.bytes = get_uint(v, c);
      }
    }
    c.key = {};
    if (node == kNoFileId || !has_level) fail(c.describe() + ": needs \"node\" and \"level\"");
    t.tiles.push_back(s);
    nodes.push_back(node);
    ++c.index;
  }
  c.index = -1;
}

}  // namespace brickprof::json_read
