// Parts of a trace (see trace_subset.h): subtrees by scope name, one pass
// over the parent links with memoised answers; one source of a merged trace
// by its threads. Both linear in the nodes, whatever their order.
#include "analysis/analyses/trace_subset.h"

#include <unordered_set>
#include <vector>

#include "analysis/analyses/closest_names.h"

namespace brickprof {
namespace {

enum class Mark : uint8_t { kUnknown, kInside, kOutside };

// Memory events and counter samples follow their scope (one made outside
// every scope is kept when `unscoped` says its thread is), shapes, tiles and
// checksums their node.
template <typename Unscoped>
void copy_memory(const Trace& trace, const std::vector<uint32_t>& renumbered, Unscoped unscoped,
                 Trace& t) {
  for (const MemoryEvent& e : trace.memory) {
    if (e.scope < renumbered.size() ? renumbered[e.scope] == kNoNode : !unscoped(e.thread))
      continue;
    t.memory.push_back(e);
    if (e.scope < renumbered.size()) t.memory.back().scope = renumbered[e.scope];
  }
  for (const CounterSample& c : trace.counters) {
    if (c.scope < renumbered.size() ? renumbered[c.scope] == kNoNode : !unscoped(c.thread))
      continue;
    t.counters.push_back(c);
    if (c.scope < renumbered.size()) t.counters.back().scope = renumbered[c.scope];
  }
  for (const TileStats& s : trace.tiles) {
    if (s.node >= renumbered.size() || renumbered[s.node] == kNoNode) continue;
    t.tiles.push_back(s);
    t.tiles.back().node = renumbered[s.node];
  }
  if (!trace.cpu_counters.nodes.empty()) t.cpu_counters.events = trace.cpu_counters.events;
  for (const NodeCpuCounters& n : trace.cpu_counters.nodes) {
    if (n.node >= renumbered.size() || renumbered[n.node] == kNoNode) continue;
    t.cpu_counters.nodes.push_back(n);
    t.cpu_counters.nodes.back().node = renumbered[n.node];
  }
  if (!trace.gpu_metrics.empty()) {
    t.gpu_metrics = trace.gpu_metrics;  // the run's settings and counts
    t.gpu_metrics.nodes.clear();
  }
  for (const NodeGpuMetrics& n : trace.gpu_metrics.nodes) {
    if (n.node >= renumbered.size() || renumbered[n.node] == kNoNode) continue;
    t.gpu_metrics.nodes.push_back(n);
    t.gpu_metrics.nodes.back().node = renumbered[n.node];
  }
  for (const NodeShape& s : trace.shapes) {
    if (s.node >= renumbered.size() || renumbered[s.node] == kNoNode) continue;
    t.shapes.push_back(s);
    t.shapes.back().node = renumbered[s.node];
  }
  for (const OutputChecksum& c : trace.checksums) {
    if (c.node >= renumbered.size() || renumbered[c.node] == kNoNode) continue;
    t.checksums.push_back(c);
    t.checksums.back().node = renumbered[c.node];
  }
}

// The kept nodes (renumbered, in their order), their GPU details, and the
// edges between kept nodes into `t`; the rest of the trace as it is.
// Returns each node's new id (kNoNode: not kept).
std::vector<uint32_t> copy_kept(const Trace& trace, const std::vector<bool>& keep, Trace& t) {
  const size_t n = trace.nodes.size();
  t.process = trace.process;
  t.diagnostics = trace.diagnostics;
  t.devices = trace.devices;
  t.threads = trace.threads;
  t.ptx = trace.ptx;
  t.sources = trace.sources;
  t.communicators = trace.communicators;
  t.python_frames = trace.python_frames;  // kept GPU nodes keep their stack ids
  t.python_stacks = trace.python_stacks;
  t.strings = trace.strings;  // names keep their ids
  std::vector<uint32_t> renumbered(n, kNoNode);
  for (uint32_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    Node node = trace.nodes[i];
    node.detail = kNoDetail;
    const GpuDetail* detail = trace.detail(trace.nodes[i]);
    renumbered[i] = detail ? t.add_gpu_node(node, *detail) : t.add_node(node);
    t.file_ids.push_back(trace.file_id(i));  // a part of a part keeps the file's ids
  }
  // Parents once every kept node has its id (a merged trace may list a
  // child before its parent); a root's parent is outside: it becomes a root.
  for (Node& node : t.nodes) node.parent = node.parent < n ? renumbered[node.parent] : kNoNode;
  for (const CommCall& call : trace.comm_calls) {  // in node order, as the kept nodes
    if (call.node >= n || renumbered[call.node] == kNoNode) continue;
    t.comm_calls.push_back(call);
    t.comm_calls.back().node = renumbered[call.node];
  }
  for (const Edge& e : trace.edges) {
    if (e.src >= n || e.dst >= n) continue;
    if (renumbered[e.src] != kNoNode && renumbered[e.dst] != kNoNode)
      t.add_edge(renumbered[e.src], renumbered[e.dst], e.type);
  }
  return renumbered;
}

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
      if (found != Mark::kInside && is_cpu_kind(trace.nodes[at].kind) &&
          trace.name(trace.nodes[at]) == name) {
        found = Mark::kInside;
        ++out.roots;
      }
      mark[at] = found;
    }
    chain.clear();
  }
  if (out.roots == 0) return out;
  std::vector<bool> keep(n);
  for (uint32_t i = 0; i < n; ++i) keep[i] = mark[i] == Mark::kInside;
  copy_memory(trace, copy_kept(trace, keep, out.trace), [](uint32_t) { return false; },
              out.trace);
  out.trace.steps_name = std::string(name);
  return out;
}

std::string no_scope_named(const Trace& trace, std::string_view name) {
  std::vector<uint8_t> seen(trace.strings.size(), 0);
  std::vector<std::string_view> scopes;
  std::string_view other_kind;  // what the name is, when a node that is no scope has it
  for (const Node& n : trace.nodes) {
    if (!is_cpu_kind(n.kind)) {
      if (other_kind.empty() && trace.name(n) == name) other_kind = to_string(n.kind);
      continue;
    }
    if (n.name < seen.size() && !seen[n.name]) {
      seen[n.name] = 1;
      scopes.push_back(trace.name(n));
    }
  }
  std::string line = "no scope named '" + std::string(name) + "' (--under";
  if (!other_kind.empty()) line += " takes scopes: that is a " + std::string(other_kind);
  return line + ")" + closest_names_note(scopes, name);
}

Subset source_subset(const Trace& trace, size_t source) {
  Subset out;
  if (source >= trace.sources.size()) return out;
  const SourceInfo& src = trace.sources[source];
  std::unordered_set<uint32_t> threads;
  for (const SourceInfo::IdMap& m : src.threads) threads.insert(m.id);
  const size_t n = trace.nodes.size();
  std::vector<bool> keep(n);
  for (uint32_t i = 0; i < n; ++i) keep[i] = threads.count(trace.nodes[i].thread) != 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t parent = trace.nodes[i].parent;
    out.roots += keep[i] && (parent >= n || !keep[parent]);
  }
  if (out.roots == 0) return out;
  copy_memory(
      trace, copy_kept(trace, keep, out.trace),
      [&threads](uint32_t thread) { return threads.count(thread) != 0; }, out.trace);
  Trace& t = out.trace;
  t.process = src.process;
  t.diagnostics.cupti = src.cupti;
  t.diagnostics.nvtx = src.nvtx;
  t.sources.clear();
  std::erase_if(t.threads, [&](const ThreadInfo& info) { return !threads.count(info.tid); });
  return out;
}

}  // namespace brickprof
