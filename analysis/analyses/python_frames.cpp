// Python frames as scopes for the views (see python_frames.h).
#include "analysis/analyses/python_frames.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace brickprof {
namespace {

// Where a launch happened on its thread's CPU timeline.
int64_t issued_at(const Node& n, const GpuDetail& d) {
  return d.api_start_ns != 0 ? d.api_start_ns : n.start_ns;
}
int64_t returned_at(const Node& n, const GpuDetail& d) {
  return d.api_start_ns != 0 ? std::max(d.api_end_ns, d.api_start_ns) : n.start_ns;
}

}  // namespace

std::string python_frame_name(const PythonFrame& f) {
  const size_t slash = f.file.find_last_of('/');
  std::string name = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  name += ':';
  name += std::to_string(f.line);
  name += ' ';
  name += f.function;
  return name;
}

size_t group_by_python_frames(Trace& trace, uint32_t depth) {
  if (depth == 0 || trace.python_stacks.empty()) return 0;
  const auto n = static_cast<uint32_t>(trace.nodes.size());
  struct Launch {
    uint32_t thread;
    int64_t at;
    uint32_t id;
  };
  std::vector<Launch> launches;
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = trace.nodes[i];
    const GpuDetail* d = trace.detail(node);
    if (node.parent != kNoNode || d == nullptr || d->python_stack >= trace.python_stacks.size() ||
        trace.python_stacks[d->python_stack].empty())
      continue;
    launches.push_back({node.thread, issued_at(node, *d), i});
  }
  if (launches.empty()) return 0;
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.at != b.at) return a.at < b.at;
    return a.id < b.id;
  });
  // Starts of each thread's outermost scopes: a chain of frames never
  // spans one (the synthetic scopes would overlap it on that thread).
  std::unordered_map<uint32_t, std::vector<int64_t>> root_starts;
  for (const Node& node : trace.nodes)
    if (node.parent == kNoNode && is_cpu_kind(node.kind) && !is_range_lane(node.thread))
      root_starts[node.thread].push_back(node.start_ns);
  for (auto& [tid, starts] : root_starts) std::sort(starts.begin(), starts.end());

  // Frame id -> its interned name, made once.
  std::vector<StringId> names(trace.python_frames.size(), 0);
  std::vector<bool> named(trace.python_frames.size(), false);
  struct Open {
    uint32_t frame;
    uint32_t node;
  };
  std::vector<Open> chain;
  std::vector<uint32_t> path;
  uint32_t thread = 0;
  int64_t last_at = 0;
  for (const Launch& l : launches) {
    const Node launched = trace.nodes[l.id];
    const GpuDetail& d = trace.gpu[launched.detail];
    if (chain.empty() || l.thread != thread) {
      chain.clear();
    } else if (auto it = root_starts.find(thread); it != root_starts.end()) {
      auto next = std::upper_bound(it->second.begin(), it->second.end(), last_at);
      if (next != it->second.end() && *next <= l.at) chain.clear();
    }
    thread = l.thread;
    last_at = l.at;
    const std::vector<uint32_t>& stack = trace.python_stacks[d.python_stack];
    const size_t kept = std::min<size_t>(depth, stack.size());
    path.assign(stack.rbegin() + static_cast<std::ptrdiff_t>(stack.size() - kept), stack.rend());
    size_t common = 0;
    while (common < chain.size() && common < path.size() && chain[common].frame == path[common])
      ++common;
    chain.resize(common);
    const int64_t end = returned_at(launched, d);
    for (size_t k = common; k < path.size(); ++k) {
      const uint32_t f = path[k];
      if (f >= names.size()) break;  // a reader checked this; a hand-built trace may not be
      if (!named[f]) {
        names[f] = trace.strings.intern(python_frame_name(trace.python_frames[f]));
        named[f] = true;
      }
      Node scope;
      scope.kind = NodeKind::kScope;
      scope.name = names[f];
      scope.parent = chain.empty() ? kNoNode : chain.back().node;
      scope.thread = l.thread;
      scope.start_ns = l.at;
      scope.end_ns = end;
      const uint32_t id = trace.add_node(scope);
      if (scope.parent != kNoNode) trace.add_edge(scope.parent, id, EdgeType::kContains);
      chain.push_back({f, id});
    }
    if (chain.empty()) continue;
    for (const Open& o : chain) {
      Node& scope = trace.nodes[o.node];
      scope.end_ns = std::max(scope.end_ns, end);
    }
    trace.nodes[l.id].parent = chain.back().node;
    trace.add_edge(chain.back().node, l.id, EdgeType::kLaunches);
  }
  return launches.size();
}

}  // namespace brickprof
