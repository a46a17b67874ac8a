// Scope naming for findings (see trace_scope.h).
#include "analysis/trace_scope.h"

#include "analysis/stats.h"

namespace brickprof {

ScopeNamer::ScopeNamer(const Trace& trace) : t_(trace), brick_(nearest_brick(trace)) {}

std::string ScopeNamer::operator()(uint32_t node) const {
  uint32_t start = brick_[node] != kNoNode ? brick_[node] : t_.nodes[node].parent;
  // Walk up to the layer; parent chains are acyclic (the reader checks) and
  // the walk is bounded by the node count anyway.
  uint32_t layer = kNoNode;
  size_t steps = 0;
  for (uint32_t cur = start; cur != kNoNode && steps <= t_.nodes.size(); cur = t_.nodes[cur].parent, ++steps)
    if (t_.nodes[cur].kind == NodeKind::kLayer) {
      layer = cur;
      break;
    }
  std::string out;
  if (layer != kNoNode) out = std::string(t_.name(t_.nodes[layer]));
  if (brick_[node] != kNoNode) {
    if (!out.empty()) out += " / ";
    out += t_.name(t_.nodes[brick_[node]]);
  } else if (layer == kNoNode && start != kNoNode) {
    out = std::string(t_.name(t_.nodes[start]));
  }
  return out.empty() ? "(no scope)" : out;
}

}  // namespace brickprof
