// Node -> work class per rank (see rank_work.h).
#include "analysis/analyses/rank_work.h"

#include "analysis/model/bricks.h"

namespace brickprof {
namespace {

// Per node: whether it or an ancestor is a Communication scope (1), or not
// (0). Each chain is walked once; answers fill top-down.
std::vector<uint8_t> inside_communication(const Trace& t) {
  constexpr uint8_t kUnknown = 2;
  const size_t n = t.nodes.size();
  std::vector<uint8_t> inside(n, kUnknown);
  std::vector<uint32_t> chain;
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t answer = 0;
    for (uint32_t at = i; at != kNoNode && at < n; at = t.nodes[at].parent) {
      if (inside[at] != kUnknown) {
        answer = inside[at];
        break;
      }
      chain.push_back(at);
      if (chain.size() > n) break;  // a parent cycle: the reader rejects these
    }
    for (size_t k = chain.size(); k-- > 0;) {
      const Node& node = t.nodes[chain[k]];
      answer = answer || is_communication_scope(node);
      inside[chain[k]] = answer;
    }
    chain.clear();
  }
  return inside;
}

}  // namespace

RankWork classify_rank_work(const Trace& t) {
  RankWork w;
  w.ranks = index_ranks(t);
  const size_t n = t.nodes.size();
  w.of_node.assign(n, WorkClass::kNone);
  w.gpu_timeline.assign(w.ranks.ranks.size(), false);
  std::vector<bool> has_cpu_child(n, false);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    if (is_device_op(node.kind) && w.ranks.of_node[i] < w.gpu_timeline.size())
      w.gpu_timeline[w.ranks.of_node[i]] = true;
    if (is_cpu_kind(node.kind) && node.parent < n) has_cpu_child[node.parent] = true;
  }
  const std::vector<uint8_t> inside = inside_communication(t);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    const uint32_t rank = w.ranks.of_node[i];
    if (rank >= w.gpu_timeline.size()) continue;
    if (w.gpu_timeline[rank]) {
      if (node.kind == NodeKind::kKernel)
        w.of_node[i] =
            is_communication_kernel(t.name(node)) ? WorkClass::kCommunication : WorkClass::kCompute;
      else if (is_device_op(node.kind))
        w.of_node[i] = WorkClass::kMemory;
      continue;
    }
    if (!is_cpu_kind(node.kind) || is_range_lane(node.thread)) continue;
    const bool parent_inside = node.parent < n && inside[node.parent];
    w.of_node[i] = cpu_work_of(inside[i], parent_inside, has_cpu_child[i]);
  }
  return w;
}

}  // namespace brickprof
