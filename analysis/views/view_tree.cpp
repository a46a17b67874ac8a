// The `report --tree` view: the ASCII tree, or the same aggregate tree as
// nested JSON for scripts.
#include <vector>

#include "analysis/views/views.h"
#include "trace/derive/aggregate_tree.h"
#include "trace/formats/tree.h"
#include "trace/json/json_writer.h"
#include "trace/model/queries.h"

namespace brickprof {
namespace {

void entry_fields(const Trace& trace, const AggregateTree& tree, uint32_t agg, JsonWriter& w) {
  const AggregateNode& a = tree.nodes[agg];
  const Node& node = trace.nodes[a.first];
  w.field("name", node_label(trace, node)).field("kind", to_string(node.kind));
  w.field("count", a.count).field("total_ns", a.total_ns).field("self_ns", a.self_ns);
  if (node.kind == NodeKind::kBrick) w.field("category", to_string(node.category));
  if (a.elements || node.kind == NodeKind::kBrick) w.field("elements", a.elements);
  if (a.bytes) w.field("bytes", a.bytes);
  const GpuDetail* g = trace.detail(node);
  if (node.kind == NodeKind::kKernel && g) {
    w.key("grid").begin_array().value(g->grid[0]).value(g->grid[1]).value(g->grid[2]).end_array();
    w.key("block")
        .begin_array()
        .value(g->block[0])
        .value(g->block[1])
        .value(g->block[2])
        .end_array();
    w.field("smem", g->smem);
  }
}

AggregateTree compute(const Trace& trace, const ViewSettings& settings) {
  AggregateTree tree = build_aggregate_tree(trace);
  tree.whole_trace = settings.whole_trace;
  return tree;
}

// The tree export's text (trace/formats/tree.h), from this model.
void text(const Trace& trace, const AggregateTree& tree, std::ostream& out) {
  write_tree(trace, tree, out);
}

// {"threads":[{"tid":..,"name":..,"children":[entry...]}], "outside_ns":..},
// where an entry has its fields and "children"; cut at the tree's default
// limits, with "more": N where entries were left out; "outside_ns", the
// time outside every scope, when the text shows that row.
void json(const Trace& trace, const AggregateTree& tree, JsonWriter& w) {
  const TreeOptions limits;
  struct Frame {
    std::vector<uint32_t> kids;
    size_t next = 0;
    size_t shown = 0;
  };
  std::vector<Frame> stack;  // explicit: deep traces must not overflow ours
  auto open = [&](uint32_t agg, uint32_t depth) {
    Frame f;
    tree.children(agg, f.kids);
    f.shown = f.kids.size();
    if (limits.max_depth && depth > limits.max_depth) f.shown = 0;
    if (limits.max_children && f.shown > limits.max_children) f.shown = limits.max_children;
    w.key("children").begin_array();
    stack.push_back(std::move(f));
  };
  w.begin_object();
  w.key("threads").begin_array();
  std::vector<uint32_t> groups;
  tree.children(0, groups);
  for (uint32_t group : groups) {
    w.begin_object();
    w.field("tid", tree.nodes[group].thread);
    std::string name;
    for (const ThreadInfo& t : trace.threads)
      if (t.tid == tree.nodes[group].thread) name = t.name;
    w.field("name", name);
    open(group, 1);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.shown) {
        size_t more = f.kids.size() - f.shown;
        stack.pop_back();
        w.end_array();
        if (more) w.field("more", static_cast<uint64_t>(more));
        w.end_object();
        continue;
      }
      uint32_t agg = f.kids[f.next++];
      w.newline().begin_object();
      entry_fields(trace, tree, agg, w);
      open(agg, static_cast<uint32_t>(stack.size()) + 1);
    }
  }
  w.end_array();
  if (const int64_t outside = time_outside_scopes(trace, tree); outside >= 0)
    w.field("outside_ns", outside);
  w.end_object();
}

}  // namespace

extern constinit const View kTreeView =
    make_view<compute, text, json>("tree", "The aggregated execution tree", true);

}  // namespace brickprof
