// In-place attribution of GPU records (see gpu_attribution.h).
#include "agent/gpu_attribution.h"

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
    r.id = r.captured_scope = r.captured_scope_raw = kNoNode;
    r.found = 0;
    by_correlation_.push_back(static_cast<uint32_t>(i));
    if (r.detail.graph_node != 0) {
      const uint64_t original = dump_->original_graph_node(r.detail.graph_node);
      by_graph_node_.push_back({original, static_cast<uint32_t>(i), false});
      if (original != r.detail.graph_node)
        by_graph_node_.push_back({r.detail.graph_node, static_cast<uint32_t>(i), true});
    }
  }
  std::sort(by_correlation_.begin(), by_correlation_.end(), [&](uint32_t a, uint32_t b) {
    uint64_t ca = (*records_)[a].detail.correlation, cb = (*records_)[b].detail.correlation;
    return ca != cb ? ca < cb : a < b;
  });
  std::sort(by_graph_node_.begin(), by_graph_node_.end(),
            [](const GraphKey& a, const GraphKey& b) { return a.node < b.node; });
}

void GpuAttribution::launch(uint64_t correlation, uint32_t scope, uint32_t tid,
                            int64_t api_start_ns, int64_t api_end_ns) {
  if (!records_) return;
  auto first = std::lower_bound(
      by_correlation_.begin(), by_correlation_.end(), correlation,
      [&](uint32_t i, uint64_t c) { return (*records_)[i].detail.correlation < c; });
  for (auto it = first;
       it != by_correlation_.end() && (*records_)[*it].detail.correlation == correlation; ++it) {
    StagedRecord& r = (*records_)[*it];
    r.node.parent = scope;
    r.node.thread = tid;
    r.detail.api_start_ns = api_start_ns;
    r.detail.api_end_ns = api_end_ns;
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
  std::vector<uint32_t>().swap(by_correlation_);
  std::vector<GraphKey>().swap(by_graph_node_);
  if (!records_) return;
  const bool recorded_only = dump_->recorded_launches_only();
  uint32_t next = first_id;
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
    by_parent_.push_back(static_cast<uint32_t>(i));
  }
  count_ = next - first_id;
  std::sort(by_parent_.begin(), by_parent_.end(), [&](uint32_t a, uint32_t b) {
    const StagedRecord& x = (*records_)[a];
    const StagedRecord& y = (*records_)[b];
    if (x.node.parent != y.node.parent) return x.node.parent < y.node.parent;
    if (x.node.start_ns != y.node.start_ns) return x.node.start_ns < y.node.start_ns;
    return x.id < y.id;
  });
}

}  // namespace brickprof::agent
