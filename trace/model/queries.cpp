// Small queries over a trace (see queries.h).
#include "trace/model/queries.h"

#include <algorithm>

#include "trace/model/bricks.h"

namespace brickprof {
namespace {

// Orders a list by (start_ns, id) unless it already is.
void order_by_start(const Trace& trace, uint32_t* begin, uint32_t* end) {
  auto before = [&](uint32_t a, uint32_t b) {
    int64_t sa = trace.nodes[a].start_ns, sb = trace.nodes[b].start_ns;
    return sa != sb ? sa < sb : a < b;
  };
  if (!std::is_sorted(begin, end, before)) std::sort(begin, end, before);
}

}  // namespace

ChildIndex::ChildIndex(const Trace& trace) {
  const size_t n = trace.nodes.size();
  offsets_.assign(n + 1, 0);
  size_t root_count = 0;
  for (const Node& node : trace.nodes) {
    if (node.parent < n)
      ++offsets_[node.parent + 1];
    else
      ++root_count;
  }
  for (size_t i = 0; i < n; ++i) offsets_[i + 1] += offsets_[i];
  children_.resize(offsets_[n]);
  roots_.reserve(root_count);
  std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t p = trace.nodes[i].parent;
    if (p < n)
      children_[fill[p]++] = i;
    else
      roots_.push_back(i);
  }
  for (size_t i = 0; i < n; ++i)
    order_by_start(trace, children_.data() + offsets_[i], children_.data() + offsets_[i + 1]);
  order_by_start(trace, roots_.data(), roots_.data() + roots_.size());
}

std::vector<uint32_t> kernel_nodes(const Trace& trace) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < trace.nodes.size(); ++i)
    if (trace.nodes[i].kind == NodeKind::kKernel) ids.push_back(i);
  return ids;
}

std::optional<SlowestKernel> slowest_kernel(const Trace& trace) {
  std::optional<SlowestKernel> best;
  for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& node = trace.nodes[i];
    if (node.kind != NodeKind::kKernel) continue;
    if (!best || node.duration_ns() > best->gpu_ns)
      best = SlowestKernel{i, kNoNode, node.duration_ns()};
  }
  if (best) {
    // Walk up to the nearest brick: one chain, not a whole-trace pass.
    for (uint32_t cur = trace.nodes[best->kernel].parent, steps = 0;
         cur < trace.nodes.size() && steps <= trace.nodes.size();
         cur = trace.nodes[cur].parent, ++steps) {
      if (trace.nodes[cur].kind == NodeKind::kBrick) {
        best->brick = cur;
        break;
      }
    }
  }
  return best;
}

bool is_scope_balanced(const Trace& trace) {
  return trace.diagnostics.unbalanced_pops == 0 && trace.diagnostics.open_scopes_at_exit == 0;
}

std::string node_label(const Trace& trace, const Node& node) {
  return node_label(trace.name(node), node, trace.detail(node));
}

std::string node_label(std::string_view name, const Node& node, const GpuDetail* g) {
  switch (node.kind) {
    case NodeKind::kLayer:
      if (name.empty()) return "Layer " + std::to_string(node.layer_index);
      break;
    case NodeKind::kBrick:
      if (name.empty()) {
        std::string_view known = brick_name(node.brick_id);
        return known.empty() ? "Brick " + std::to_string(node.brick_id) : std::string(known);
      }
      break;
    case NodeKind::kTransfer:
      // The direction when it was recorded; else the recorded name (a trace
      // written elsewhere may name its copies "memcpy DtoH").
      if (!g || g->direction == Direction::kUnknown)
        return name.empty() ? "memcpy" : std::string(name);
      return std::string(to_string(g->direction));
    case NodeKind::kMemset:
      return "memset";
    case NodeKind::kSync:
      if (name.empty()) {
        return "sync " + std::string(to_string(g ? g->sync : SyncKind::kUnknown));
      }
      break;
    default:
      if (name.empty()) return std::string(to_string(node.kind));
      break;
  }
  return std::string(name);
}

ThreadLabels::ThreadLabels(const Trace& trace) {
  for (const ThreadInfo& t : trace.threads)
    if (!t.name.empty()) names_.emplace(t.tid, t.name);  // the first one stays
}

std::string ThreadLabels::operator()(uint32_t tid) const {
  std::string s = "Thread " + std::to_string(tid);
  if (auto it = names_.find(tid); it != names_.end()) s += " (" + std::string(it->second) + ")";
  return s;
}

std::string thread_label(const Trace& trace, uint32_t tid) {
  std::string s = "Thread " + std::to_string(tid);
  for (const ThreadInfo& t : trace.threads) {
    if (t.tid == tid && !t.name.empty()) {
      s += " (" + t.name + ")";
      break;
    }
  }
  return s;
}

}  // namespace brickprof
