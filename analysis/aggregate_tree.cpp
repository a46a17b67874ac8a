// Builds the aggregate tree (see aggregate_tree.h).
#include "analysis/aggregate_tree.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "analysis/queries.h"

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

Key key_of(const Trace& trace, const Node& node, uint32_t parent_agg) {
  Key k;
  k.parent = parent_agg;
  k.kind = node.kind;
  k.name = node.name;
  const GpuDetail* g = trace.detail(node);
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

class Builder {
 public:
  explicit Builder(const Trace& trace) : trace_(trace) {}

  AggregateTree build() {
    const size_t n = trace_.nodes.size();
    tree_.nodes.reserve(64);
    tree_.nodes.push_back(AggregateNode{});  // the top
    tree_.of_trace_node.assign(n, kNoAgg);
    ChildIndex index(trace_);
    std::vector<uint32_t> stack;
    // Roots in start order; each subtree depth-first, children in order.
    for (uint32_t root : index.roots()) {
      stack.push_back(root);
      while (!stack.empty()) {
        uint32_t id = stack.back();
        stack.pop_back();
        const Node& node = trace_.nodes[id];
        uint32_t parent_agg = node.parent < n ? tree_.of_trace_node[node.parent]
                                              : thread_group(node.thread);
        uint32_t agg = merge(id, parent_agg);
        tree_.of_trace_node[id] = agg;
        auto kids = index.children(id);
        for (size_t i = kids.size(); i-- > 0;) stack.push_back(kids[i]);
      }
    }
    finish_self_times();
    return std::move(tree_);
  }

 private:
  uint32_t add_child(uint32_t parent, AggregateNode node) {
    auto id = static_cast<uint32_t>(tree_.nodes.size());
    node.parent = parent;
    node.depth = tree_.nodes[parent].depth + 1;
    AggregateNode& p = tree_.nodes[parent];
    if (p.last_child == kNoAgg) p.first_child = id;
    else tree_.nodes[p.last_child].next_sibling = id;
    p.last_child = id;
    p.child_count++;
    tree_.nodes.push_back(node);
    return id;
  }

  uint32_t thread_group(uint32_t tid) {
    auto [it, inserted] = groups_.emplace(tid, 0);
    if (inserted) {
      AggregateNode g;
      g.thread = tid;
      it->second = add_child(0, g);
    }
    return it->second;
  }

  uint32_t merge(uint32_t id, uint32_t parent_agg) {
    const Node& node = trace_.nodes[id];
    auto [it, inserted] = index_.emplace(key_of(trace_, node, parent_agg), 0);
    if (inserted) {
      AggregateNode a;
      a.first = id;
      it->second = add_child(parent_agg, a);
    }
    AggregateNode& a = tree_.nodes[it->second];
    int64_t d = node.duration_ns();
    a.count++;
    a.total_ns += d;
    a.self_ns += d;
    a.elements += node.elements;
    if (const GpuDetail* g = trace_.detail(node)) a.bytes += g->bytes;
    // A CPU child's time is not its CPU parent's self time.
    if (is_cpu_kind(node.kind) && node.parent < trace_.nodes.size() &&
        is_cpu_kind(trace_.nodes[node.parent].kind))
      tree_.nodes[parent_agg].self_ns -= d;
    return it->second;
  }

  void finish_self_times() {
    for (AggregateNode& a : tree_.nodes) a.self_ns = std::max<int64_t>(a.self_ns, 0);
  }

  const Trace& trace_;
  AggregateTree tree_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  std::unordered_map<uint32_t, uint32_t> groups_;
};

}  // namespace

void AggregateTree::children(uint32_t agg, std::vector<uint32_t>& out) const {
  out.clear();
  for (uint32_t c = nodes[agg].first_child; c != kNoAgg; c = nodes[c].next_sibling) out.push_back(c);
}

AggregateTree build_aggregate_tree(const Trace& trace) { return Builder(trace).build(); }

}  // namespace brickprof
