// Scope paths and Python lines for the memory figures (see memory_scopes.h).
#include "analysis/analyses/memory_scopes.h"

#include "trace/derive/python_frames.h"
#include "trace/model/queries.h"

namespace brickprof {

uint32_t ScopePaths::of(uint32_t node) const {
  if (node == kNoNode || node >= of_.size()) return kNoPath;
  // Up to the first ancestor with a known path, then down again: no
  // recursion, each node resolved once.
  std::vector<uint32_t> chain;
  for (uint32_t n = node; n != kNoNode && of_[n] == kNoPath; n = t_->nodes[n].parent)
    chain.push_back(n);
  for (size_t i = chain.size(); i-- > 0;) {
    const Node& n = t_->nodes[chain[i]];
    const uint32_t parent = n.parent == kNoNode ? kNoPath : of_[n.parent];
    const Key key{parent, n.name, n.kind == NodeKind::kLayer ? n.layer_index : -1, n.kind};
    auto [it, added] = index_.try_emplace(key, static_cast<uint32_t>(paths_.size()));
    if (added)
      paths_.push_back({parent, chain[i], parent == kNoPath ? 0 : paths_[parent].depth + 1});
    of_[chain[i]] = it->second;
  }
  return of_[node];
}

std::string ScopePaths::text(const Trace& trace, uint32_t path) const {
  if (path == kNoPath) return "(outside every scope)";
  std::vector<uint32_t> chain;
  for (uint32_t p = path; p != kNoPath; p = paths_[p].parent) chain.push_back(p);
  std::string out;
  for (size_t i = chain.size(); i-- > 0;) {
    if (!out.empty()) out += " / ";
    out += node_label(trace, trace.nodes[paths_[chain[i]].node]);
  }
  return out;
}

uint32_t innermost_frame(const Trace& trace, uint32_t python_stack) {
  if (python_stack >= trace.python_stacks.size() || trace.python_stacks[python_stack].empty())
    return kNoFrame;
  return trace.python_stacks[python_stack].front();
}

std::string frame_text(const Trace& trace, uint32_t frame) {
  if (frame >= trace.python_frames.size()) return "(no Python frame)";
  return python_frame_name(trace.python_frames[frame]);
}

}  // namespace brickprof
