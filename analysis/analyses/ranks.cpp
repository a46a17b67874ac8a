// Node -> rank attribution (see ranks.h).
#include "analysis/analyses/ranks.h"

#include <unordered_map>

#include "trace/json/json_writer.h"

namespace brickprof {

RankIndex index_ranks(const Trace& t) {
  RankIndex index;
  index.of_node.assign(t.nodes.size(), kNoRank);
  if (t.sources.empty()) {
    const int64_t rank = t.process.rank;
    index.ranks.push_back({rank, "rank " + std::to_string(rank < 0 ? 0 : rank), 0});
    index.of_node.assign(t.nodes.size(), 0);
    return index;
  }
  std::unordered_map<uint32_t, uint32_t> thread_rank, device_rank;
  for (uint32_t s = 0; s < t.sources.size(); ++s) {
    const SourceInfo& src = t.sources[s];
    index.ranks.push_back({src.process.rank, src.label, s});
    for (const SourceInfo::IdMap& m : src.threads) thread_rank.emplace(m.id, s);
    for (const SourceInfo::IdMap& m : src.devices) device_rank.emplace(m.id, s);
  }
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    const GpuDetail* g = is_gpu_kind(n.kind) ? t.detail(n) : nullptr;
    const auto& map = g ? device_rank : thread_rank;
    auto it = map.find(g ? g->device : n.thread);
    if (it != map.end()) index.of_node[i] = it->second;
  }
  return index;
}

void write_ranks_json(JsonWriter& w, const RankIndex& ranks) {
  w.key("ranks").begin_array();
  for (uint32_t i = 0; i < ranks.ranks.size(); ++i)
    w.begin_object()
        .field("index", i)
        .field("rank", ranks.ranks[i].rank)
        .field("label", ranks.ranks[i].label)
        .end_object();
  w.end_array();
}

}  // namespace brickprof
