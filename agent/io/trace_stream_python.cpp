// The streamed exit write's Python frames (see trace_stream_impl.h): GPU
// work launched outside every scope goes under synthetic scopes of its
// innermost Python frame in the tree, DOT, folded, Chrome and Perfetto
// files, made by the same algorithm `brickprof report` runs when it reads
// the JSON (trace/derive/python_frames.h), with the ids it gives them
// (after every recorded node, in the order they are made), so every file
// says what `report` says of the JSON, which keeps the trace as recorded.
#include <algorithm>

#include "agent/io/trace_stream_impl.h"
#include "trace/formats/perfetto.h"

namespace brickprof::agent {

void TraceStream::Impl::group_python() {
  PythonGroups& p = python;
  if (header.python_stacks.empty()) return;
  std::vector<PythonLaunch> launches;
  std::vector<uint32_t> record_of;  // launch -> staged record
  for (uint32_t i = 0; i < gpu.staged(); ++i) {
    const StagedRecord& r = gpu.record(i);
    if (r.id == kNoNode || r.node.parent != kNoNode ||
        r.detail.python_stack >= header.python_stacks.size())
      continue;
    launches.push_back(python_launch_of(r.id, r.node, r.detail));
    record_of.push_back(i);
  }
  if (launches.empty()) return;
  // Indexes by staged record, and each grouped record's (scope, start,
  // id) among its scope's children: charged as the aggregate is.
  const uint64_t bytes = sizeof(uint32_t) * gpu.staged() + 3 * sizeof(Child) * launches.size();
  if (!charge(bytes)) {
    header.diagnostics.warnings.push_back(
        "GPU work not grouped under its Python frames in the tree, DOT, folded, Chrome and "
        "Perfetto files (BRICKPROF_BUFFER_MB); brickprof report groups it from the JSON");
    return;
  }
  p.scope_of.assign(gpu.staged(), kNoNode);
  std::vector<Child> children;
  PythonGroupingVisitor visit;
  visit.launched = [&](uint32_t launch, uint32_t scope) {
    const StagedRecord& r = gpu.record(record_of[launch]);
    p.scope_of[record_of[launch]] = scope;
    children.push_back({scope, r.node.start_ns, r.id, record_of[launch], false});
  };
  p.scopes = group_python_launches(launches, header.python_stacks, header.python_frames.size(),
                                   kDefaultPythonFrames, p.roots, visit);
  p.first_id = cpu_count + static_cast<uint32_t>(ranges.size()) + gpu.count();
  std::vector<StringId> frame_names(header.python_frames.size(), kUnset);
  p.names.reserve(p.scopes.size());
  for (uint32_t s = 0; s < p.scopes.size(); ++s) {
    const PythonScope& scope = p.scopes[s];
    StringId& name = frame_names[scope.frame];
    if (name == kUnset)
      name = exemplars.strings.intern(python_frame_name(header.python_frames[scope.frame]));
    p.names.push_back(name);
    p.by_thread[scope.thread].push_back(s);
    if (scope.parent == kNoNode)
      p.roots_in_order.push_back(s);
    else
      children.push_back({scope.parent, scope.start_ns, p.id(s), s, true});
  }
  // As the trace's children are: by start, then id (ChildIndex).
  std::sort(children.begin(), children.end(), [](const Child& a, const Child& b) {
    if (a.scope != b.scope) return a.scope < b.scope;
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.id < b.id;
  });
  p.children = std::move(children);
  p.first_child.assign(p.scopes.size() + 1, 0);
  for (const Child& c : p.children) ++p.first_child[c.scope + 1];
  for (size_t s = 0; s < p.scopes.size(); ++s) p.first_child[s + 1] += p.first_child[s];
  std::sort(p.roots_in_order.begin(), p.roots_in_order.end(), [&](uint32_t a, uint32_t b) {
    const int64_t sa = p.scopes[a].start_ns, sb = p.scopes[b].start_ns;
    return sa != sb ? sa < sb : a < b;
  });
  // Each thread's scopes as its Perfetto track lists slices.
  for (auto& [tid, scopes] : p.by_thread)
    std::sort(scopes.begin(), scopes.end(), [&](uint32_t a, uint32_t b) {
      const PythonScope& x = p.scopes[a];
      const PythonScope& y = p.scopes[b];
      return slice_precedes(x.start_ns, x.end_ns, p.id(a), y.start_ns, y.end_ns, p.id(b));
    });
}

Node TraceStream::Impl::python_node(uint32_t scope) const {
  const PythonScope& s = python.scopes[scope];
  Node n;
  n.kind = NodeKind::kScope;
  n.name = python.names[scope];
  n.parent = s.parent == kNoNode ? kNoNode : python.id(s.parent);
  n.thread = s.thread;
  n.start_ns = s.start_ns;
  n.end_ns = s.end_ns;
  return n;
}

void TraceStream::Impl::visit_python(uint32_t scope, uint32_t parent_agg, uint32_t cpu_parent_agg) {
  const Node n = python_node(scope);
  Frame f{};
  f.id = python.id(scope);
  f.agg = enter(n, nullptr, parent_agg);
  f.own_brick = f.nearest_brick = -1;
  add_time(f.agg, n.duration_ns(), cpu_parent_agg);
  for (uint32_t c = python.first_child[scope]; c < python.first_child[scope + 1]; ++c) {
    const Child& child = python.children[c];
    if (child.is_scope)
      visit_python(child.index, f.agg, f.agg);
    else
      visit_gpu(child.index, &f);
  }
}

}  // namespace brickprof::agent
