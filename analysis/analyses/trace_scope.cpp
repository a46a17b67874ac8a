// Scope naming for findings (see trace_scope.h).
#include "analysis/analyses/trace_scope.h"

#include "trace/derive/stats.h"

namespace brickprof {

ScopeNamer::ScopeNamer(const Trace& trace)
    : t_(trace), brick_(nearest_brick(trace)), layer_(nearest_of_kind(trace, NodeKind::kLayer)) {}

std::string ScopeNamer::operator()(uint32_t node) const {
  const uint32_t brick = brick_[node];
  uint32_t start = brick != kNoNode ? brick : t_.nodes[node].parent;
  if (start >= layer_.size()) start = kNoNode;
  const uint32_t layer = start != kNoNode ? layer_[start] : kNoNode;
  std::string out;
  if (layer != kNoNode) out = std::string(t_.name(t_.nodes[layer]));
  if (brick != kNoNode) {
    if (!out.empty()) out += " / ";
    out += t_.name(t_.nodes[brick]);
  } else if (layer == kNoNode && start != kNoNode) {
    out = std::string(t_.name(t_.nodes[start]));
  }
  return out.empty() ? "(no scope)" : out;
}

}  // namespace brickprof
