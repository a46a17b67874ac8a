// Builds the aggregate tree (see aggregate_tree.h).
#include "trace/derive/aggregate_tree.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "trace/model/queries.h"
#include "trace/model/recorded.h"

namespace brickprof {
namespace {

// What makes two siblings "the same" entry.
struct Key {
  uint32_t parent = 0;
  uint32_t name = 0;
  int32_t index = 0;  // layer index, brick id or transfer direction
  uint32_t smem = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  NodeKind kind = NodeKind::kScope;

  bool operator==(const Key& o) const {
    return parent == o.parent && name == o.name && index == o.index && smem == o.smem &&
           kind == o.kind && std::memcmp(grid, o.grid, sizeof grid) == 0 &&
           std::memcmp(block, o.block, sizeof block) == 0;
  }
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    auto mix = [&h](uint64_t v) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    };
    mix((uint64_t{k.parent} << 32) | k.name);
    mix((uint64_t{static_cast<uint32_t>(k.index)} << 32) | k.smem);
    mix((uint64_t{k.grid[0]} << 32) | k.block[0]);
    mix((uint64_t{k.grid[1]} << 32 | k.grid[2]) ^ (uint64_t{k.block[1]} << 16 | k.block[2]));
    mix(static_cast<uint64_t>(k.kind));
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

Key key_of(const Node& node, const GpuDetail* g, uint32_t parent_agg) {
  Key k;
  k.parent = parent_agg;
  k.kind = node.kind;
  k.name = node.name;
  switch (node.kind) {
    case NodeKind::kLayer:
      k.index = node.layer_index;
      break;
    case NodeKind::kBrick:
      k.index = node.brick_id;
      break;
    case NodeKind::kKernel:
      if (g) {
        std::memcpy(k.grid, g->grid, sizeof k.grid);
        std::memcpy(k.block, g->block, sizeof k.block);
        k.smem = g->smem;
      }
      break;
    case NodeKind::kTransfer:
      // The line shows the direction, not the name: merge by direction.
      k.name = 0;
      k.index = g ? static_cast<int32_t>(g->direction) : 0;
      break;
    case NodeKind::kMemset:
      k.name = 0;
      break;
    default:
      break;
  }
  return k;
}

// Walks the trace depth-first (roots in start order, children in order)
// and enters each node into the builder.
AggregateTree build(const Trace& trace) {
  const size_t n = trace.nodes.size();
  AggregateBuilder b;
  std::vector<uint32_t> of_trace_node(n, kNoAgg);
  ChildIndex index(trace);
  std::vector<uint32_t> stack;
  for (uint32_t root : index.roots()) {
    stack.push_back(root);
    while (!stack.empty()) {
      uint32_t id = stack.back();
      stack.pop_back();
      const Node& node = trace.nodes[id];
      const bool has_parent = node.parent < n;
      uint32_t parent_agg = has_parent ? of_trace_node[node.parent] : b.thread_group(node.thread);
      uint32_t agg = b.enter(node, trace.detail(node), parent_agg, id);
      of_trace_node[id] = agg;
      // A CPU child's time is not its CPU parent's self time.
      const bool cpu_in_cpu =
          is_cpu_kind(node.kind) && has_parent && is_cpu_kind(trace.nodes[node.parent].kind);
      b.add_time(agg, node.duration_ns(), cpu_in_cpu ? parent_agg : kNoAgg);
      if (!has_parent && is_cpu_kind(node.kind)) b.add_root_span(node.start_ns, node.end_ns);
      auto kids = index.children(id);
      for (size_t i = kids.size(); i-- > 0;) stack.push_back(kids[i]);
    }
  }
  AggregateTree tree = b.finish();
  tree.of_trace_node = std::move(of_trace_node);
  return tree;
}

}  // namespace

void AggregateTree::children(uint32_t agg, std::vector<uint32_t>& out) const {
  out.clear();
  for (uint32_t c = nodes[agg].first_child; c != kNoAgg; c = nodes[c].next_sibling)
    out.push_back(c);
}

AggregateTree build_aggregate_tree(const Trace& trace) { return build(trace); }

int64_t time_outside_scopes(const Trace& trace, const AggregateTree& tree) {
  const int64_t wall = recorded_wall_ns(trace);
  if (!tree.whole_trace || wall <= 0 || recorded_nothing(trace)) return -1;
  return std::max<int64_t>(wall - tree.scoped_ns, 0);
}

struct AggregateBuilder::Index {
  std::unordered_map<Key, uint32_t, KeyHash> map;
};

AggregateBuilder::AggregateBuilder() : index_(std::make_unique<Index>()) {
  tree_.nodes.reserve(64);
  tree_.nodes.push_back(AggregateNode{});  // the top
}

AggregateBuilder::~AggregateBuilder() = default;

uint32_t append_child(AggregateTree& tree, uint32_t parent, AggregateNode node) {
  auto id = static_cast<uint32_t>(tree.nodes.size());
  node.parent = parent;
  node.depth = tree.nodes[parent].depth + 1;
  AggregateNode& p = tree.nodes[parent];
  if (p.last_child == kNoAgg)
    p.first_child = id;
  else
    tree.nodes[p.last_child].next_sibling = id;
  p.last_child = id;
  p.child_count++;
  tree.nodes.push_back(node);
  return id;
}

uint32_t AggregateBuilder::add_child(uint32_t parent, AggregateNode node) {
  return append_child(tree_, parent, node);
}

uint32_t AggregateBuilder::thread_group(uint32_t tid) {
  auto [it, inserted] = groups_.emplace(tid, 0);
  if (inserted) {
    AggregateNode g;
    g.thread = tid;
    it->second = add_child(0, g);
  }
  return it->second;
}

uint32_t AggregateBuilder::enter(const Node& node, const GpuDetail* detail, uint32_t parent_agg,
                                 uint32_t first) {
  auto [it, inserted] = index_->map.emplace(key_of(node, detail, parent_agg), 0);
  if (inserted) {
    AggregateNode a;
    a.first = first;
    it->second = add_child(parent_agg, a);
  }
  enter_again(it->second, node, detail);
  return it->second;
}

void AggregateBuilder::add_time(uint32_t agg, int64_t d, uint32_t cpu_parent_agg) {
  AggregateNode& a = tree_.nodes[agg];
  a.total_ns += d;
  a.self_ns += d;
  if (cpu_parent_agg != kNoAgg) tree_.nodes[cpu_parent_agg].self_ns -= d;
}

AggregateTree AggregateBuilder::finish() {
  tree_.scoped_ns = scoped_.total_ns();
  scoped_ = {};
  for (AggregateNode& a : tree_.nodes) a.self_ns = std::max<int64_t>(a.self_ns, 0);
  index_->map.clear();
  groups_.clear();
  return std::move(tree_);
}

}  // namespace brickprof
