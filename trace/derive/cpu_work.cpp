// Compute and communication of a rank measured on its CPU (see cpu_work.h).
#include "trace/derive/cpu_work.h"

namespace brickprof {

bool is_device_op(NodeKind k) {
  return k == NodeKind::kKernel || k == NodeKind::kTransfer || k == NodeKind::kMemset;
}

std::vector<bool> inside_communication(const Trace& t) {
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
      answer = answer || (is_cpu_kind(node.kind) && node.category == Category::kCommunication);
      inside[chain[k]] = answer;
    }
    chain.clear();
  }
  return std::vector<bool>(inside.begin(), inside.end());
}

std::vector<bool> has_cpu_child(const Trace& t) {
  const size_t n = t.nodes.size();
  std::vector<bool> has(n, false);
  for (const Node& node : t.nodes)
    if (is_cpu_kind(node.kind) && node.parent < n) has[node.parent] = true;
  return has;
}

std::vector<CpuWork> classify_cpu_work(const Trace& t) {
  const size_t n = t.nodes.size();
  std::vector<CpuWork> work(n, CpuWork::kNone);
  const std::vector<bool> inside = inside_communication(t);
  const std::vector<bool> has_child = has_cpu_child(t);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    if (!is_cpu_kind(node.kind) || is_range_lane(node.thread)) continue;
    work[i] = cpu_work_of(inside[i], node.parent < n && inside[node.parent], has_child[i]);
  }
  return work;
}

}  // namespace brickprof
