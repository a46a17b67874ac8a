// Subtrees by scope name (see trace_subset.h). One pass over the parent
// links with memoised answers: linear in the nodes, whatever their order.
#include "analysis/trace_subset.h"

#include <vector>

namespace brickprof {
namespace {

enum class Mark : uint8_t { kUnknown, kInside, kOutside };

}  // namespace

Subset subtrees_named(const Trace& trace, std::string_view name) {
  const size_t n = trace.nodes.size();
  std::vector<Mark> mark(n, Mark::kUnknown);
  std::vector<uint32_t> chain;
  Subset out;
  for (uint32_t start = 0; start < n; ++start) {
    // Walk up to a node already decided (or a root), then decide the chain.
    Mark found = Mark::kOutside;
    for (uint32_t at = start; at != kNoNode && at < n; at = trace.nodes[at].parent) {
      if (mark[at] != Mark::kUnknown) {
        found = mark[at];
        break;
      }
      chain.push_back(at);
      if (chain.size() > n) break;  // a parent cycle (the reader rejects them)
    }
    // Top-down: a node named `name` makes its descendants inside.
    for (size_t i = chain.size(); i-- > 0;) {
      const uint32_t at = chain[i];
      if (found != Mark::kInside && trace.name(trace.nodes[at]) == name) {
        found = Mark::kInside;
        ++out.roots;
      }
      mark[at] = found;
    }
    chain.clear();
  }
  if (out.roots == 0) return out;

  Trace& t = out.trace;
  t.process = trace.process;
  t.diagnostics = trace.diagnostics;
  t.devices = trace.devices;
  t.threads = trace.threads;
  t.ptx = trace.ptx;
  t.python_frames = trace.python_frames;  // kept GPU nodes keep their stack ids
  t.python_stacks = trace.python_stacks;
  t.sources = trace.sources;
  t.strings = trace.strings;  // names keep their ids
  std::vector<uint32_t> renumbered(n, kNoNode);
  for (uint32_t i = 0; i < n; ++i) {
    if (mark[i] != Mark::kInside) continue;
    Node node = trace.nodes[i];
    node.detail = kNoDetail;
    const GpuDetail* detail = trace.detail(trace.nodes[i]);
    renumbered[i] = detail ? t.add_gpu_node(node, *detail) : t.add_node(node);
  }
  // Parents once every kept node has its id (a merged trace may list a
  // child before its parent); a root's parent is outside: it becomes a root.
  for (Node& node : t.nodes) node.parent = node.parent < n ? renumbered[node.parent] : kNoNode;
  for (const Edge& e : trace.edges) {
    if (e.src >= n || e.dst >= n) continue;
    if (renumbered[e.src] != kNoNode && renumbered[e.dst] != kNoNode)
      t.add_edge(renumbered[e.src], renumbered[e.dst], e.type);
  }
  return out;
}

}  // namespace brickprof
