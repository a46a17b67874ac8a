// Per-layer and per-brick load imbalance across ranks (see imbalance.h).
#include "analysis/analyses/imbalance.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace/derive/stats.h"

namespace brickprof {
namespace {

void finish(ImbalanceRow& row, size_t ranks) {
  row.max_ns = 0;
  int64_t total = 0;
  for (uint32_t r = 0; r < ranks; ++r) {
    total += row.compute_ns[r];
    if (row.straggler == kNoRank || row.compute_ns[r] > row.max_ns) {
      row.max_ns = row.compute_ns[r];
      row.straggler = r;
    }
  }
  row.mean_ns = ranks ? static_cast<double>(total) / static_cast<double>(ranks) : 0;
  if (ranks < 2 || row.straggler == kNoRank) return;
  const double others = static_cast<double>(total - row.max_ns) / static_cast<double>(ranks - 1);
  const uint64_t runs = std::max<uint64_t>(1, row.instances[row.straggler]);
  row.excess_per_instance_ns =
      (static_cast<double>(row.max_ns) - others) / static_cast<double>(runs);
}

ImbalanceRow empty_row(size_t ranks) {
  ImbalanceRow row;
  row.compute_ns.assign(ranks, 0);
  row.instances.assign(ranks, 0);
  return row;
}

}  // namespace

ImbalanceReport analyze_imbalance(const Trace& t, const RankWork& work) {
  ImbalanceReport r;
  r.ranks = work.ranks;
  const size_t ranks = r.ranks.ranks.size();
  const std::vector<uint32_t> layer_of = nearest_of_kind(t, NodeKind::kLayer);
  const std::vector<uint32_t> brick_of = nearest_of_kind(t, NodeKind::kBrick);
  std::map<int32_t, ImbalanceRow> layers;
  std::unordered_map<StringId, ImbalanceRow> bricks;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    const uint32_t rank = work.ranks.of_node[i];
    if (rank >= ranks) continue;
    // Instances: every layer and brick node counts, whatever it holds.
    if (n.kind == NodeKind::kLayer) {
      auto [it, added] = layers.try_emplace(n.layer_index, empty_row(ranks));
      ++it->second.instances[rank];
    } else if (n.kind == NodeKind::kBrick && n.category != Category::kCommunication) {
      auto [it, added] = bricks.try_emplace(n.name, empty_row(ranks));
      ++it->second.instances[rank];
    }
    if (work.of_node[i] != WorkClass::kCompute) continue;
    const int64_t d = n.duration_ns();
    if (layer_of[i] != kNoNode) {
      auto [it, added] = layers.try_emplace(t.nodes[layer_of[i]].layer_index, empty_row(ranks));
      it->second.compute_ns[rank] += d;
    }
    if (brick_of[i] != kNoNode) {
      auto [it, added] = bricks.try_emplace(t.nodes[brick_of[i]].name, empty_row(ranks));
      it->second.compute_ns[rank] += d;
    }
  }
  for (auto& [index, row] : layers) {
    row.layer = true;
    row.layer_index = index;
    finish(row, ranks);
    r.layers.push_back(std::move(row));
  }
  for (auto& [name, row] : bricks) {
    row.brick = name;
    finish(row, ranks);
    if (row.max_ns > 0) r.bricks.push_back(std::move(row));
  }
  std::sort(r.bricks.begin(), r.bricks.end(), [&](const ImbalanceRow& a, const ImbalanceRow& b) {
    if (a.mean_ns != b.mean_ns) return a.mean_ns > b.mean_ns;
    return t.strings.view(a.brick) < t.strings.view(b.brick);
  });
  return r;
}

}  // namespace brickprof
