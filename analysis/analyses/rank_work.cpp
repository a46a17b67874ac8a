// Node -> work class per rank (see rank_work.h).
#include "analysis/analyses/rank_work.h"

#include "trace/derive/cpu_work.h"
#include "trace/model/bricks.h"

namespace brickprof {

RankWork classify_rank_work(const Trace& t) {
  RankWork w;
  w.ranks = index_ranks(t);
  const size_t n = t.nodes.size();
  w.of_node.assign(n, WorkClass::kNone);
  w.gpu_timeline.assign(w.ranks.ranks.size(), false);
  for (uint32_t i = 0; i < n; ++i) {
    if (is_device_op(t.nodes[i].kind) && w.ranks.of_node[i] < w.gpu_timeline.size())
      w.gpu_timeline[w.ranks.of_node[i]] = true;
  }
  const std::vector<bool> inside = inside_communication(t);
  const std::vector<bool> has_child = has_cpu_child(t);
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
    switch (cpu_work_of(inside[i], node.parent < n && inside[node.parent], has_child[i])) {
      case CpuWork::kCompute: w.of_node[i] = WorkClass::kCompute; break;
      case CpuWork::kCommunication: w.of_node[i] = WorkClass::kCommunication; break;
      case CpuWork::kNone: break;
    }
  }
  return w;
}

}  // namespace brickprof
