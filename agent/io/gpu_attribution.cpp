// In-place attribution of GPU records (see gpu_attribution.h).
#include "agent/io/gpu_attribution.h"

#include <algorithm>

namespace brickprof::agent {

GpuAttribution::GpuAttribution(GpuDump* dump)
    : dump_(dump), records_(dump ? &dump->records() : nullptr) {
  if (!records_) return;
  const size_t n = records_->size();
  by_correlation_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    StagedRecord& r = (*records_)[i];
    // A dump before a failed exec may have written here: start afresh.
    r.node.parent = kNoNode;
    r.node.thread = 0;
    r.detail.api_start_ns = r.detail.api_end_ns = 0;
    r.detail.python_stack = kNoPythonStack;
    r.id = r.captured_scope = r.captured_scope_raw = kNoNode;
    r.found = 0;
    by_correlation_.emplace_back(r.detail.correlation, static_cast<uint32_t>(i));
    if (r.detail.graph_node != 0) {
      const uint64_t original = dump_->original_graph_node(r.detail.graph_node);
      by_graph_node_.push_back({original, static_cast<uint32_t>(i), false});
      if (original != r.detail.graph_node)
        by_graph_node_.push_back({r.detail.graph_node, static_cast<uint32_t>(i), true});
    }
  }
  std::sort(by_correlation_.begin(), by_correlation_.end());
  std::sort(by_graph_node_.begin(), by_graph_node_.end(),
            [](const GraphKey& a, const GraphKey& b) { return a.node < b.node; });
}

void GpuAttribution::launch(uint64_t correlation, uint32_t scope, uint32_t tid,
                            int64_t api_start_ns, int64_t api_end_ns, uint32_t python_stack) {
  if (!records_) return;
  auto first = std::lower_bound(by_correlation_.begin(), by_correlation_.end(),
                                std::make_pair(correlation, uint32_t{0}));
  for (auto it = first; it != by_correlation_.end() && it->first == correlation; ++it) {
    StagedRecord& r = (*records_)[it->second];
    r.node.parent = scope;
    r.node.thread = tid;
    r.detail.api_start_ns = api_start_ns;
    r.detail.api_end_ns = api_end_ns;
    r.detail.python_stack = python_stack;
    r.found |= StagedRecord::kLaunchFound;
  }
}

void GpuAttribution::graph_node(uint64_t graph_node_id, uint32_t scope) {
  auto first = std::lower_bound(by_graph_node_.begin(), by_graph_node_.end(), graph_node_id,
                                [](const GraphKey& k, uint64_t id) { return k.node < id; });
  for (auto it = first; it != by_graph_node_.end() && it->node == graph_node_id; ++it) {
    StagedRecord& r = (*records_)[it->record];
    if (it->raw) {
      r.captured_scope_raw = scope;
      r.found |= StagedRecord::kCapturedRawFound;
    } else {
      r.captured_scope = scope;
      r.found |= StagedRecord::kCapturedFound;
    }
  }
}

void GpuAttribution::finish(uint32_t first_id) {
  std::vector<std::pair<uint64_t, uint32_t>>().swap(by_correlation_);
  std::vector<GraphKey>().swap(by_graph_node_);
  if (!records_) return;
  const bool recorded_only = dump_->recorded_launches_only();
  uint32_t next = first_id;
  struct ChildKey {  // sorted by parent, start, id; the record beside them
    uint32_t parent;
    int64_t start_ns;
    uint32_t id;
    uint32_t record;
  };
  std::vector<ChildKey> children;
  children.reserve(records_->size());
  for (size_t i = 0; i < records_->size(); ++i) {
    StagedRecord& r = (*records_)[i];
    if (!(r.found & StagedRecord::kLaunchFound) && recorded_only) {
      ++left_out_;
      continue;
    }
    // Graph replays: the scope that captured the node beats the scope
    // around cudaGraphLaunch (often none, or a whole step); the node it
    // was cloned from first, then its own id.
    if (r.detail.graph_node != 0) {
      uint32_t captured = kNoNode;
      bool found = false;
      if (r.found & StagedRecord::kCapturedFound) {
        captured = r.captured_scope;
        found = true;
      } else if (r.found & StagedRecord::kCapturedRawFound) {
        captured = r.captured_scope_raw;
        found = true;
      }
      if (found && captured != kNoNode) r.node.parent = captured;
    }
    if (r.node.kind == NodeKind::kTransfer || r.node.kind == NodeKind::kMemset)
      dump_->fill_addresses(r.node.kind, r.detail);
    r.id = next++;
    children.push_back({r.node.parent, r.node.start_ns, r.id, static_cast<uint32_t>(i)});
  }
  count_ = next - first_id;
  std::sort(children.begin(), children.end(), [](const ChildKey& x, const ChildKey& y) {
    if (x.parent != y.parent) return x.parent < y.parent;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.id < y.id;
  });
  by_parent_.reserve(children.size());
  for (const ChildKey& k : children) by_parent_.push_back(k.record);
}

}  // namespace brickprof::agent
