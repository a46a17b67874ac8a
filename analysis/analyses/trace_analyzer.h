// The trace analyzer (after the seed's): per-op summary, slowest ops, memory
// hotspots, per-device summary, load balance across devices and the share
// of communication. An "op" is leaf work: a kernel, copy or memset, or a CPU
// brick/scope that issued no GPU work (so nothing is counted twice).
// Collapsed stacks for flame graphs are the `.folded` exporter's job.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyses/spread.h"
#include "trace/model/trace.h"

namespace brickprof {

struct OpSummary {
  std::string name;
  NodeKind kind = NodeKind::kKernel;
  uint64_t count = 0;
  int64_t total_ns = 0;
  double bytes = 0;
  // The spread of one call's duration (nearest-rank percentiles): jitter
  // an average hides.
  int64_t min_ns = 0, median_ns = 0, p99_ns = 0, max_ns = 0;
  int64_t avg_ns() const { return count ? total_ns / static_cast<int64_t>(count) : 0; }
};

struct DeviceSummary {
  std::string device;  // "gpu0", "cpu"
  uint64_t ops = 0;
  int64_t total_ns = 0;
  double bytes = 0;
};

struct Analysis {
  std::vector<OpSummary> ops;          // by total time, largest first
  std::vector<uint32_t> slowest;       // node ids, slowest first (top N)
  std::vector<uint32_t> hotspots;      // node ids moving more than the threshold
  std::vector<uint32_t> op_nodes;      // every op's node id (shapes.h splits ops by shape)
  std::vector<DeviceSummary> devices;  // by name
  // Load balance over GPU devices (needs two or more): max / mean busy time.
  double imbalance_ratio = 0;
  std::vector<OpSummary> communication;  // collective/p2p ops, by total time
  int64_t total_ns = 0;                  // all op time
  double comm_share(const OpSummary& op) const {
    return total_ns > 0 ? static_cast<double>(op.total_ns) / static_cast<double>(total_ns) : 0;
  }
};

struct AnalyzerOptions {
  size_t slowest = 10;
  double hotspot_bytes = 64.0 * 1024 * 1024;
};

Analysis analyze_trace(const Trace& trace, const AnalyzerOptions& options = {});

// allreduce, all_gather, reduce_scatter, broadcast, send, recv, nccl..., and
// what bricks.h calls communication (MPI_*, Barrier, NCCL kernels).
bool is_communication(std::string_view name);

}  // namespace brickprof
