// Tiles per brick and level (see tiles.h).
#include "analysis/analyses/tiles.h"

#include "analysis/analyses/machine_peaks.h"

#include <algorithm>
#include <unordered_map>

namespace brickprof {
namespace {

// The brick each tile entry counts for: the nearest brick at or above its
// node, else (a pool worker's scope, which has no brick on its own thread)
// the innermost brick on another thread whose time holds the whole of the
// node's outermost scope, else the node itself.
class BrickFinder {
 public:
  explicit BrickFinder(const Trace& t) : t_(t) {
    for (uint32_t i = 0; i < t.nodes.size(); ++i)
      if (t.nodes[i].kind == NodeKind::kBrick) bricks_.push_back(i);
    std::stable_sort(bricks_.begin(), bricks_.end(), [&](uint32_t a, uint32_t b) {
      return t_.nodes[a].start_ns < t_.nodes[b].start_ns;
    });
  }

  uint32_t brick_of(uint32_t node) const {
    uint32_t root = node;
    for (uint32_t at = node, steps = 0; at < t_.nodes.size() && steps <= t_.nodes.size(); ++steps) {
      if (t_.nodes[at].kind == NodeKind::kBrick) return at;
      root = at;
      if (t_.nodes[at].parent == at) break;
      at = t_.nodes[at].parent;
    }
    const Node& r = t_.nodes[root];
    // Bricks that start by r's start, latest first: the first that also ends
    // after it on another thread is the innermost holding it. A few steps
    // back at most (bricks nest only so deep), so the analysis stays linear.
    auto it =
        std::upper_bound(bricks_.begin(), bricks_.end(), r.start_ns,
                         [&](int64_t start, uint32_t b) { return start < t_.nodes[b].start_ns; });
    for (int steps = 0; it != bricks_.begin() && steps < kMaxStepsBack; ++steps) {
      const Node& b = t_.nodes[*--it];
      if (b.thread != r.thread && b.end_ns >= r.end_ns) return *it;
    }
    return node;
  }

 private:
  static constexpr int kMaxStepsBack = 64;
  const Trace& t_;
  std::vector<uint32_t> bricks_;  // by start
};

double per_second(uint64_t amount, int64_t ns) {
  return ns > 0 ? static_cast<double>(amount) * 1e9 / static_cast<double>(ns) : 0;
}

}  // namespace

int tile_cache_level(TileLevel level) { return 3 - static_cast<int>(level); }

double TileReport::of_cache(const BrickTiles& row) const {
  const double gbps = cache_gbps[tile_cache_level(row.level) - 1];
  return gbps > 0 ? row.bytes_per_second() / (gbps * 1e9) : 0;
}

double BrickTiles::elements_per_second() const { return per_second(elements, total_ns); }
double BrickTiles::bytes_per_second() const { return per_second(bytes, total_ns); }

TileReport analyze_tiles(const Trace& t) {
  TileReport r;
  for (const Device& d : t.devices)  // the last "cpu" entry speaks for the host, as for its peaks
    if (is_cpu_device(t, d) && (d.cache_gbps[0] > 0 || d.cache_gbps[1] > 0 || d.cache_gbps[2] > 0))
      std::copy(std::begin(d.cache_gbps), std::end(d.cache_gbps), r.cache_gbps);
  std::unordered_map<uint64_t, size_t> row_of;       // brick name << 2 | level
  std::unordered_map<uint64_t, uint32_t> last_node;  // a row's last node, to count occurrences
  BrickFinder finder(t);
  for (const TileStats& s : t.tiles) {
    if (s.node >= t.nodes.size()) continue;
    const uint32_t brick = finder.brick_of(s.node);
    const StringId name = t.nodes[brick].name;
    const uint64_t key = static_cast<uint64_t>(name) << 2 | static_cast<uint64_t>(s.level);
    auto [it, fresh] = row_of.try_emplace(key, r.rows.size());
    if (fresh) {
      r.rows.emplace_back();
      r.rows.back().brick = name;
      r.rows.back().level = s.level;
    }
    BrickTiles& row = r.rows[it->second];
    row.count += s.count;
    row.total_ns += s.total_ns;
    row.elements += s.elements;
    row.bytes += s.bytes;
    auto [last, first] = last_node.try_emplace(key, brick);
    if (first || last->second != brick) ++row.nodes;
    last->second = brick;
  }
  // Each brick's rows together, levels in order, bricks as they first came.
  std::unordered_map<StringId, size_t> brick_rank;
  for (const BrickTiles& row : r.rows) brick_rank.try_emplace(row.brick, brick_rank.size());
  std::stable_sort(r.rows.begin(), r.rows.end(), [&](const BrickTiles& a, const BrickTiles& b) {
    const size_t ra = brick_rank[a.brick], rb = brick_rank[b.brick];
    return ra != rb ? ra < rb : a.level < b.level;
  });
  return r;
}

}  // namespace brickprof
