// Per-brick and per-category statistics (see stats.h).
#include "trace/derive/stats.h"

#include <algorithm>
#include <unordered_map>

#include "trace/model/recorded.h"

namespace brickprof {

std::vector<uint32_t> nearest_of_kind(const Trace& trace, NodeKind kind) {
  const size_t n = trace.nodes.size();
  constexpr uint32_t kUnknown = kNoNode - 1;
  std::vector<uint32_t> result(n, kUnknown);
  std::vector<uint32_t> chain;
  for (size_t i = 0; i < n; ++i) {
    // Walk up until a known answer, then fill the chain: each node once.
    uint32_t cur = static_cast<uint32_t>(i);
    chain.clear();
    uint32_t answer = kNoNode;
    while (cur != kNoNode && cur < n) {
      if (result[cur] != kUnknown) {
        answer = result[cur];
        break;
      }
      if (trace.nodes[cur].kind == kind) {
        answer = cur;
        result[cur] = cur;
        break;
      }
      chain.push_back(cur);
      if (chain.size() > n) break;  // parent cycle: the reader rejects these
      cur = trace.nodes[cur].parent;
    }
    for (uint32_t c : chain) result[c] = answer;
  }
  return result;
}

std::vector<uint32_t> nearest_brick(const Trace& trace) {
  return nearest_of_kind(trace, NodeKind::kBrick);
}

size_t StatsBuilder::slot(std::string_view name) {
  auto [it, inserted] = index_.emplace(name, bricks_.size());
  if (inserted) {
    BrickStat s;
    s.name = std::string(name);
    s.min_ns = INT64_MAX;
    s.max_ns = INT64_MIN;
    bricks_.push_back(std::move(s));
    first_id_.push_back(UINT32_MAX);
  }
  return it->second;
}

void StatsBuilder::seen(size_t slot, uint32_t id, Category category) {
  if (id < first_id_[slot]) {
    first_id_[slot] = id;
    bricks_[slot].category = category == Category::kNone ? Category::kOther : category;
  }
}

void StatsBuilder::add_brick(size_t slot, int64_t d, uint64_t elements) {
  BrickStat& s = bricks_[slot];
  s.count++;
  s.total_ns += d;
  s.min_ns = std::min(s.min_ns, d);
  s.max_ns = std::max(s.max_ns, d);
  s.elements += elements;
}

void StatsBuilder::add_kernel(size_t slot, int64_t d) {
  BrickStat& s = bricks_[slot];
  s.gpu_ns += d;
  s.kernels++;
}

TraceStats StatsBuilder::finish() {
  TraceStats stats;
  std::vector<size_t> order(bricks_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return first_id_[a] < first_id_[b]; });
  stats.bricks.reserve(bricks_.size());
  for (size_t i : order) {
    BrickStat& s = bricks_[i];
    if (s.count == 0) s.min_ns = s.max_ns = 0;
    stats.bricks.push_back(std::move(s));
  }
  for (Category c : {Category::kNorm, Category::kAttention, Category::kFfn, Category::kOther,
                     Category::kCommunication})
    stats.categories.push_back(CategoryStat{c, 0, 0, 0});
  for (const BrickStat& s : stats.bricks) {
    CategoryStat& c = stats.categories[static_cast<size_t>(s.category)];
    c.count += s.count;
    c.total_ns += s.total_ns;
    stats.brick_total_ns += s.total_ns;
  }
  // Listed only where there is some: a single-process trace has none.
  if (stats.categories.back().count == 0) stats.categories.pop_back();
  for (CategoryStat& c : stats.categories)
    c.pct = stats.brick_total_ns > 0 ? 100.0 * static_cast<double>(c.total_ns) /
                                           static_cast<double>(stats.brick_total_ns)
                                     : 0;
  index_.clear();
  bricks_.clear();
  first_id_.clear();
  return stats;
}

TraceStats compute_stats(const Trace& trace) {
  StatsBuilder builder;
  std::vector<size_t> brick_slot(trace.nodes.size(), SIZE_MAX);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& node = trace.nodes[i];
    if (node.kind != NodeKind::kBrick) continue;
    brick_slot[i] = builder.slot(trace.name(node));
    builder.seen(brick_slot[i], static_cast<uint32_t>(i), node.category);
    builder.add_brick(brick_slot[i], node.duration_ns(), node.elements);
  }
  std::vector<uint32_t> owner = nearest_brick(trace);
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const Node& node = trace.nodes[i];
    if (node.kind != NodeKind::kKernel || owner[i] == kNoNode) continue;
    builder.add_kernel(brick_slot[owner[i]], node.duration_ns());
  }
  return builder.finish();
}

TraceSummary summarize_trace(const Trace& trace) {
  TraceSummary s;
  s.stats = compute_stats(trace);
  s.nodes = trace.nodes.size();
  for (const Node& node : trace.nodes) s.kernels += node.kind == NodeKind::kKernel;
  s.slowest_kernel = slowest_kernel(trace);
  s.scope_balanced = is_scope_balanced(trace);
  const std::vector<uint32_t> brick = nearest_brick(trace);
  for (const Node& node : trace.nodes)
    if (node.kind == NodeKind::kBrick && node.parent < brick.size() &&
        brick[node.parent] != kNoNode) {
      s.nested_bricks = true;
      break;
    }
  s.outside_scopes_ns = time_outside_scopes(trace);
  return s;
}

}  // namespace brickprof
