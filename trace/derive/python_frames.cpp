// Python frames as scopes for the views (see python_frames.h).
#include "trace/derive/python_frames.h"

#include <algorithm>
#include <unordered_map>

namespace brickprof {

PythonLaunch python_launch_of(uint32_t id, const Node& n, const GpuDetail& d) {
  // Where the launch happened on its thread's CPU timeline.
  const bool api = d.api_start_ns != 0;
  return {id, n.thread, api ? d.api_start_ns : n.start_ns,
          api ? std::max(d.api_end_ns, d.api_start_ns) : n.start_ns, d.python_stack};
}

std::string python_frame_name(const PythonFrame& f) {
  const size_t slash = f.file.find_last_of('/');
  std::string name = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  name += ':';
  name += std::to_string(f.line);
  name += ' ';
  name += f.function;
  return name;
}

RootStarts root_starts_of(const Trace& trace) {
  RootStarts starts;
  for (const Node& node : trace.nodes)
    if (node.parent == kNoNode && is_cpu_kind(node.kind) && !is_range_lane(node.thread))
      starts[node.thread].push_back(node.start_ns);
  for (auto& [tid, s] : starts) std::sort(s.begin(), s.end());
  return starts;
}

std::vector<PythonScope> group_python_launches(const std::vector<PythonLaunch>& launches,
                                               const std::vector<std::vector<uint32_t>>& stacks,
                                               size_t frames, uint32_t depth,
                                               const RootStarts& roots,
                                               const PythonGroupingVisitor& visit) {
  std::vector<PythonScope> scopes;
  if (depth == 0) return scopes;
  std::vector<uint32_t> order;
  order.reserve(launches.size());
  for (uint32_t i = 0; i < launches.size(); ++i)
    if (launches[i].stack < stacks.size() && !stacks[launches[i].stack].empty()) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const PythonLaunch& a = launches[x];
    const PythonLaunch& b = launches[y];
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.issued_ns != b.issued_ns) return a.issued_ns < b.issued_ns;
    return a.id < b.id;
  });
  struct Open {
    uint32_t frame;
    uint32_t scope;
  };
  std::vector<Open> chain;
  std::vector<uint32_t> path;
  uint32_t thread = 0;
  int64_t last_at = 0;
  for (const uint32_t i : order) {
    const PythonLaunch& l = launches[i];
    if (chain.empty() || l.thread != thread) {
      chain.clear();
    } else if (auto it = roots.find(thread); it != roots.end()) {
      auto next = std::upper_bound(it->second.begin(), it->second.end(), last_at);
      if (next != it->second.end() && *next <= l.issued_ns) chain.clear();
    }
    thread = l.thread;
    last_at = l.issued_ns;
    const std::vector<uint32_t>& stack = stacks[l.stack];
    const size_t kept = std::min<size_t>(depth, stack.size());
    path.assign(stack.rbegin() + static_cast<std::ptrdiff_t>(stack.size() - kept), stack.rend());
    size_t common = 0;
    while (common < chain.size() && common < path.size() && chain[common].frame == path[common])
      ++common;
    chain.resize(common);
    for (size_t k = common; k < path.size(); ++k) {
      if (path[k] >= frames) break;  // a reader checked this; a hand-built trace may not be
      const auto id = static_cast<uint32_t>(scopes.size());
      scopes.push_back({path[k], chain.empty() ? kNoNode : chain.back().scope, l.thread,
                        l.issued_ns, l.returned_ns});
      if (visit.scope) visit.scope(id, scopes.back());
      chain.push_back({path[k], id});
    }
    if (chain.empty()) continue;
    for (const Open& o : chain)
      scopes[o.scope].end_ns = std::max(scopes[o.scope].end_ns, l.returned_ns);
    if (visit.launched) visit.launched(i, chain.back().scope);
  }
  return scopes;
}

namespace {

// Memory events outside every scope with a Python stack, under the deepest
// synthetic scope open on their thread then whose frames are the innermost
// of theirs (as a launch there would be); `first`: the scopes' first node.
void place_memory_events(Trace& trace, const std::vector<PythonScope>& scopes, uint32_t first,
                         uint32_t depth) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> by_thread;  // made in start order
  for (uint32_t i = 0; i < scopes.size(); ++i) by_thread[scopes[i].thread].push_back(i);
  std::vector<uint32_t> chain;
  for (MemoryEvent& e : trace.memory) {
    if (e.scope != kNoNode || e.python_stack >= trace.python_stacks.size()) continue;
    const std::vector<uint32_t>& stack = trace.python_stacks[e.python_stack];
    auto list = by_thread.find(e.thread);
    if (stack.empty() || list == by_thread.end()) continue;
    auto after = std::upper_bound(
        list->second.begin(), list->second.end(), e.time_ns,
        [&](int64_t t, uint32_t s) { return t < scopes[s].start_ns; });
    if (after == list->second.begin()) continue;
    // Runs on one thread follow each other: only the latest started scope
    // and its ancestors can hold the event.
    uint32_t s = *std::prev(after);
    while (s != kNoNode && scopes[s].end_ns < e.time_ns) s = scopes[s].parent;
    const size_t kept = std::min<size_t>(depth, stack.size());
    for (; s != kNoNode; s = scopes[s].parent) {
      chain.clear();
      for (uint32_t c = s; c != kNoNode; c = scopes[c].parent) chain.push_back(scopes[c].frame);
      if (chain.size() > kept) continue;
      // chain: innermost first; the event's kept frames from the outermost.
      bool same = true;
      for (size_t k = 0; k < chain.size() && same; ++k)
        same = chain[chain.size() - 1 - k] == stack[kept - 1 - k];
      if (same) {
        e.scope = first + s;
        break;
      }
    }
  }
}

}  // namespace

size_t group_by_python_frames(Trace& trace, uint32_t depth) {
  if (depth == 0 || trace.python_stacks.empty()) return 0;
  std::vector<PythonLaunch> launches;
  for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& node = trace.nodes[i];
    const GpuDetail* d = trace.detail(node);
    if (node.parent != kNoNode || d == nullptr || d->python_stack >= trace.python_stacks.size() ||
        trace.python_stacks[d->python_stack].empty())
      continue;
    launches.push_back(python_launch_of(i, node, *d));
  }
  if (launches.empty()) return 0;
  // Frame id -> its interned name, made once.
  std::vector<StringId> names(trace.python_frames.size(), 0);
  std::vector<bool> named(trace.python_frames.size(), false);
  const auto first = static_cast<uint32_t>(trace.nodes.size());
  size_t moved = 0;
  PythonGroupingVisitor visit;
  visit.scope = [&](uint32_t index, const PythonScope& s) {
    if (!named[s.frame]) {
      names[s.frame] = trace.strings.intern(python_frame_name(trace.python_frames[s.frame]));
      named[s.frame] = true;
    }
    Node scope;
    scope.kind = NodeKind::kScope;
    scope.name = names[s.frame];
    scope.parent = s.parent == kNoNode ? kNoNode : first + s.parent;
    scope.thread = s.thread;
    scope.start_ns = s.start_ns;
    scope.end_ns = s.end_ns;
    const uint32_t id = trace.add_node(scope);
    (void)index;  // == id - first
    if (scope.parent != kNoNode) trace.add_edge(scope.parent, id, EdgeType::kContains);
  };
  visit.launched = [&](uint32_t launch, uint32_t scope) {
    trace.nodes[launches[launch].id].parent = first + scope;
    trace.add_edge(first + scope, launches[launch].id, EdgeType::kLaunches);
    ++moved;
  };
  const std::vector<PythonScope> scopes =
      group_python_launches(launches, trace.python_stacks, trace.python_frames.size(), depth,
                            root_starts_of(trace), visit);
  for (uint32_t i = 0; i < scopes.size(); ++i) trace.nodes[first + i].end_ns = scopes[i].end_ns;
  place_memory_events(trace, scopes, first, depth);
  return moved;
}

}  // namespace brickprof
