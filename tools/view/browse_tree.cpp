// The browser's tree (see browse_tree.h).
#include "tools/view/browse_tree.h"

#include <algorithm>
#include <numeric>

#include "trace/model/hash_text.h"
#include "trace/model/printable.h"
#include "trace/model/queries.h"

namespace brickprof::view {
namespace {

// Kernels, copies and memsets: a synchronisation's time is the host
// waiting, not GPU work.
bool is_gpu_work(const Trace& trace, const AggregateNode& a) {
  if (a.first == kNoNode) return false;
  const NodeKind kind = trace.nodes[a.first].kind;
  return is_gpu_kind(kind) && kind != NodeKind::kSync;
}

}  // namespace

BrowseTree::BrowseTree(const Trace& trace, AggregateTree tree)
    : trace_(trace), tree_(std::move(tree)) {
  // Thread groups are rows only when there are several (as in the tree export).
  if (!tree_.multi_thread() && tree_.top().first_child != kNoAgg) {
    root_ = tree_.top().first_child;
    base_depth_ = 2;
  } else {
    base_depth_ = 1;
  }
  if (const int64_t outside = time_outside_scopes(trace_, tree_); outside >= 0)
    add_outside_row(outside);
  build_ptx_rows();
  build_children();
  roll_up_gpu();
  expanded_.assign(size(), false);
  expanded_[root_] = true;
  run_ns_ = run_span_ns(trace_);
}

int64_t run_span_ns(const Trace& trace) {
  const int64_t run = trace.process.end_ns - trace.process.start_ns;
  if (run > 0 || trace.nodes.empty()) return std::max<int64_t>(run, 0);
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (const Node& n : trace.nodes) {
    first = std::min(first, n.start_ns);
    last = std::max(last, n.end_ns);
  }
  return last - first;
}

void BrowseTree::add_outside_row(int64_t outside_ns) {
  AggregateNode row;
  row.total_ns = row.self_ns = outside_ns;
  outside_ = append_child(tree_, root_, row);
}

// One PTX row per (kernel entry, PTX hash) its launches used: almost always
// one, several when a merged trace's ranks ran different builds.
void BrowseTree::build_ptx_rows() {
  const size_t entries = tree_.nodes.size();
  std::vector<uint64_t> first(entries, 0);
  std::vector<std::pair<uint32_t, uint64_t>> more;
  for (size_t i = 0; i < trace_.nodes.size(); ++i) {
    const Node& n = trace_.nodes[i];
    const GpuDetail* g = n.kind == NodeKind::kKernel ? trace_.detail(n) : nullptr;
    if (!g || g->ptx_hash == 0) continue;
    const uint32_t e = tree_.of_trace_node[i];
    if (first[e] == 0)
      first[e] = g->ptx_hash;
    else if (first[e] != g->ptx_hash)
      more.emplace_back(e, g->ptx_hash);
  }
  for (uint32_t e = 0; e < entries; ++e)
    if (first[e] != 0) more.emplace_back(e, first[e]);
  std::sort(more.begin(), more.end());
  more.erase(std::unique(more.begin(), more.end()), more.end());
  for (auto [e, hash] : more) {
    ptx_kernel_.push_back(e);
    ptx_hash_.push_back(hash);
  }
}

void BrowseTree::build_children() {
  const size_t entries = tree_.nodes.size();
  const size_t rows = entries + ptx_kernel_.size();
  parent_.assign(rows, kNoRow);
  std::vector<uint32_t> count(rows + 1, 0);
  for (uint32_t e = 1; e < entries; ++e) {
    parent_[e] = tree_.nodes[e].parent;
    ++count[parent_[e]];
  }
  for (uint32_t p = 0; p < ptx_kernel_.size(); ++p) {
    parent_[entries + p] = ptx_kernel_[p];
    ++count[ptx_kernel_[p]];
  }
  child_begin_.assign(rows + 1, 0);
  for (size_t r = 0; r < rows; ++r) child_begin_[r + 1] = child_begin_[r] + count[r];
  children_.resize(child_begin_[rows]);
  std::vector<uint32_t> fill(child_begin_.begin(), child_begin_.end() - 1);
  // Ids ascending: the aggregate tree's first-appearance order.
  for (uint32_t r = 1; r < rows; ++r)
    if (parent_[r] != kNoRow) children_[fill[parent_[r]]++] = r;
  for (uint32_t r = 0; r < rows; ++r)
    if (parent_[r] == root_) parent_[r] = kNoRow;
}

void BrowseTree::roll_up_gpu() {
  gpu_ns_.assign(tree_.nodes.size(), 0);
  cpu_children_ns_.assign(tree_.nodes.size(), 0);
  // A parent's id is below its children's: one pass from the end.
  for (size_t e = tree_.nodes.size(); e-- > 1;) {
    const AggregateNode& a = tree_.nodes[e];
    const bool gpu = is_gpu_work(trace_, a);
    if (gpu) gpu_ns_[e] = a.total_ns;
    gpu_ns_[a.parent] += gpu_ns_[e];
    if (!gpu) cpu_children_ns_[a.parent] += total_ns(static_cast<uint32_t>(e));
  }
}

int64_t BrowseTree::total_ns(uint32_t row) const {
  if (is_ptx(row)) return 0;
  const bool group = tree_.nodes[row].first == kNoNode && row != outside_;
  return group ? cpu_children_ns_[row] : tree_.nodes[row].total_ns;
}

double BrowseTree::share(uint32_t row) const {
  if (is_ptx(row)) return -1;
  const uint32_t p = parent_[row] == kNoRow ? root_ : parent_[row];
  const bool gpu = is_gpu_work(trace_, tree_.nodes[row]);
  const int64_t base = gpu ? gpu_ns_[p] : total_ns(p);
  return base > 0 ? 100.0 * static_cast<double>(total_ns(row)) / static_cast<double>(base) : -1;
}

uint32_t BrowseTree::entry(uint32_t row) const {
  return is_ptx(row) ? ptx_kernel_[row - tree_.nodes.size()] : row;
}

uint64_t BrowseTree::ptx_hash(uint32_t row) const {
  return is_ptx(row) ? ptx_hash_[row - tree_.nodes.size()] : 0;
}

uint32_t BrowseTree::parent(uint32_t row) const { return parent_[row]; }

uint32_t BrowseTree::depth(uint32_t row) const {
  if (is_ptx(row)) return depth(entry(row)) + 1;
  return tree_.nodes[row].depth - base_depth_;
}

std::span<const uint32_t> BrowseTree::children(uint32_t row) const {
  return {children_.data() + child_begin_[row], child_begin_[row + 1] - child_begin_[row]};
}

bool BrowseTree::last_sibling(uint32_t row) const {
  std::span<const uint32_t> siblings = children(parent_[row] == kNoRow ? root_ : parent_[row]);
  return !siblings.empty() && siblings.back() == row;
}

int64_t BrowseTree::gpu_ns(uint32_t row) const { return is_ptx(row) ? 0 : gpu_ns_[row]; }

std::string BrowseTree::label(uint32_t row) const {
  if (is_ptx(row)) {
    return "PTX " + hash_text(ptx_hash(row));
  }
  const AggregateNode& a = tree_.nodes[row];
  if (row == outside_) return std::string(kOutsideScopesLabel);
  if (a.first == kNoNode) return printable(thread_label(trace_, a.thread));
  return printable(node_label(trace_, trace_.nodes[a.first]));
}

std::span<const uint32_t> BrowseTree::members(uint32_t entry) {
  if (member_begin_.empty()) {
    const size_t entries = tree_.nodes.size();
    member_begin_.assign(entries + 1, 0);
    for (uint32_t e : tree_.of_trace_node) ++member_begin_[e + 1];
    std::partial_sum(member_begin_.begin(), member_begin_.end(), member_begin_.begin());
    members_.resize(trace_.nodes.size());
    std::vector<uint32_t> fill(member_begin_.begin(), member_begin_.end() - 1);
    for (uint32_t i = 0; i < trace_.nodes.size(); ++i) members_[fill[tree_.of_trace_node[i]]++] = i;
  }
  return {members_.data() + member_begin_[entry], member_begin_[entry + 1] - member_begin_[entry]};
}

void BrowseTree::sort(SortKey key, bool descending, const std::function<double(uint32_t)>& value) {
  sort_key_ = key;
  descending_ = descending;
  std::vector<std::pair<std::string, uint32_t>> named;
  for (size_t r = 0; r < size(); ++r) {
    uint32_t* begin = children_.data() + child_begin_[r];
    uint32_t* end = children_.data() + child_begin_[r + 1];
    if (end - begin < 2) continue;
    std::sort(begin, end);  // tree order first: ties keep it
    if (key == SortKey::kTree) {
      if (descending) continue;
      std::reverse(begin, end);
      continue;
    }
    auto figure = [&](uint32_t row) -> double {
      if (key == SortKey::kChange) return value ? value(row) : 0;
      if (is_ptx(row)) return 0;
      const AggregateNode& a = tree_.nodes[row];
      switch (key) {
        case SortKey::kTotal:
          return static_cast<double>(total_ns(row));
        case SortKey::kAvg:
          return a.count ? static_cast<double>(a.total_ns) / static_cast<double>(a.count) : 0;
        case SortKey::kCount:
          return static_cast<double>(a.count);
        case SortKey::kGpu:
          return static_cast<double>(gpu_ns_[row]);
        default:
          return 0;
      }
    };
    if (key == SortKey::kName) {
      named.clear();
      for (uint32_t* it = begin; it != end; ++it) named.emplace_back(label(*it), *it);
      std::stable_sort(named.begin(), named.end(), [&](const auto& a, const auto& b) {
        return descending ? a.first > b.first : a.first < b.first;
      });
      for (size_t i = 0; i < named.size(); ++i) begin[i] = named[i].second;
      continue;
    }
    std::stable_sort(begin, end, [&](uint32_t a, uint32_t b) {
      return descending ? figure(a) > figure(b) : figure(a) < figure(b);
    });
  }
  invalidate_order();
}

void BrowseTree::set_expanded(uint32_t row, bool expanded) {
  if (row == root_ || expanded_[row] == expanded) return;
  expanded_[row] = expanded;
  visible_dirty_ = true;
}

void BrowseTree::set_expanded_below(uint32_t row, bool expanded) {
  std::vector<uint32_t> stack = {row};
  while (!stack.empty()) {
    uint32_t r = stack.back();
    stack.pop_back();
    if (r != root_) expanded_[r] = expanded;
    for (uint32_t c : children(r)) stack.push_back(c);
  }
  visible_dirty_ = true;
}

void BrowseTree::reveal(uint32_t row) {
  for (uint32_t p = parent_[row]; p != kNoRow; p = parent_[p]) {
    if (!expanded_[p]) visible_dirty_ = true;
    expanded_[p] = true;
  }
}

void BrowseTree::expand_to_fit(size_t rows) {
  std::vector<uint32_t> level(children(root_).begin(), children(root_).end());
  size_t shown = level.size();
  while (!level.empty()) {
    std::vector<uint32_t> next;
    for (uint32_t r : level)
      if (!is_ptx(r) && tree_.nodes[r].first_child != kNoAgg)
        for (uint32_t c : children(r)) next.push_back(c);
    if (next.empty() || shown + next.size() > rows) break;
    for (uint32_t r : level)
      if (!is_ptx(r) && tree_.nodes[r].first_child != kNoAgg) expanded_[r] = true;
    shown += next.size();
    level = std::move(next);
  }
  visible_dirty_ = true;
}

const std::vector<uint32_t>& BrowseTree::preorder() {
  if (!preorder_.empty() || empty()) return preorder_;
  preorder_.reserve(size());
  subtree_end_.assign(size(), 0);
  position_.assign(size(), UINT32_MAX);
  // Explicit stack: a 10^5-deep nest must not overflow ours. An entry is
  // pushed once to open it (its children follow) and once to close it.
  struct Step {
    uint32_t row;
    bool close;
  };
  std::vector<Step> stack;
  std::span<const uint32_t> top = children(root_);
  for (size_t i = top.size(); i-- > 0;) stack.push_back({top[i], false});
  while (!stack.empty()) {
    Step s = stack.back();
    stack.pop_back();
    if (s.close) {
      subtree_end_[position_[s.row]] = static_cast<uint32_t>(preorder_.size());
      continue;
    }
    position_[s.row] = static_cast<uint32_t>(preorder_.size());
    preorder_.push_back(s.row);
    stack.push_back({s.row, true});
    std::span<const uint32_t> kids = children(s.row);
    for (size_t i = kids.size(); i-- > 0;) stack.push_back({kids[i], false});
  }
  visible_dirty_ = true;
  return preorder_;
}

const std::vector<uint32_t>& BrowseTree::visible() {
  if (!visible_dirty_) return visible_;
  const std::vector<uint32_t>& order = preorder();
  visible_.clear();
  for (size_t i = 0; i < order.size();) {
    visible_.push_back(order[i]);
    i = expanded_[order[i]] ? i + 1 : subtree_end_[i];
  }
  visible_dirty_ = false;
  return visible_;
}

size_t BrowseTree::visible_index(uint32_t row) {
  const std::vector<uint32_t>& rows = visible();
  auto it = std::find(rows.begin(), rows.end(), row);
  return it == rows.end() ? SIZE_MAX : static_cast<size_t>(it - rows.begin());
}

}  // namespace brickprof::view
