// Trace analyzer (see trace_analyzer.h).
#include "analysis/analyses/trace_analyzer.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace/model/bricks.h"
#include "trace/model/name_key.h"

namespace brickprof {

bool is_communication(std::string_view name) {
  // MPI calls, the collectives' brick names, NCCL kernels (bricks.h).
  if (custom_brick_category(name) == Category::kCommunication || is_communication_kernel(name))
    return true;
  const std::string s = name_key(name, "_-");
  for (std::string_view k :
       {"allreduce", "allgather", "reducescatter", "broadcast", "alltoall", "nccl", "send", "recv"})
    if (s.find(k) != std::string::npos) return true;
  return false;
}

Analysis analyze_trace(const Trace& t, const AnalyzerOptions& opt) {
  Analysis a;
  const size_t n = t.nodes.size();
  // CPU scopes that issued GPU work are containers, not ops.
  std::vector<uint8_t> issued(n, 0);
  for (const Node& node : t.nodes)
    if (is_gpu_kind(node.kind) && node.parent != kNoNode) issued[node.parent] = 1;
  std::unordered_map<std::string_view, size_t> index;
  std::map<std::string, DeviceSummary> devices;
  std::vector<uint32_t> ops;
  std::vector<std::vector<int64_t>> durations;  // per op, as a.ops before sorting
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    bool op = node.kind == NodeKind::kKernel || node.kind == NodeKind::kTransfer ||
              node.kind == NodeKind::kMemset ||
              ((node.kind == NodeKind::kBrick || node.kind == NodeKind::kScope) && !issued[i]);
    if (!op) continue;
    // A CPU scope with CPU children is not leaf work either.
    if (!is_gpu_kind(node.kind) && node.parent != kNoNode) issued[node.parent] = 1;
    ops.push_back(i);
  }
  for (uint32_t i : ops) {
    const Node& node = t.nodes[i];
    if (!is_gpu_kind(node.kind) && issued[i]) continue;  // had CPU children after all
    a.op_nodes.push_back(i);
    const GpuDetail* d = t.detail(node);
    double bytes = node.bytes_moved > 0 ? node.bytes_moved : d ? static_cast<double>(d->bytes) : 0;
    auto [it, added] = index.emplace(t.name(node), a.ops.size());
    if (added) {
      a.ops.push_back(OpSummary{std::string(t.name(node)), node.kind});
      durations.emplace_back();
    }
    OpSummary& s = a.ops[it->second];
    durations[it->second].push_back(node.duration_ns());
    s.count++;
    s.total_ns += node.duration_ns();
    s.bytes += bytes;
    a.total_ns += node.duration_ns();
    std::string dev = d && is_gpu_kind(node.kind) ? "gpu" + std::to_string(d->device) : "cpu";
    DeviceSummary& ds = devices[dev];
    ds.device = dev;
    ds.ops++;
    ds.total_ns += node.duration_ns();
    ds.bytes += bytes;
    if (bytes > opt.hotspot_bytes) a.hotspots.push_back(i);
    a.slowest.push_back(i);
  }
  auto slower = [&](uint32_t x, uint32_t y) {
    int64_t dx = t.nodes[x].duration_ns(), dy = t.nodes[y].duration_ns();
    return dx != dy ? dx > dy : x < y;
  };
  size_t k = std::min(opt.slowest, a.slowest.size());
  std::partial_sort(a.slowest.begin(), a.slowest.begin() + static_cast<std::ptrdiff_t>(k),
                    a.slowest.end(), slower);
  a.slowest.resize(k);
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Spread spread = spread_of(durations[i]);
    OpSummary& s = a.ops[i];
    s.min_ns = spread.min_ns;
    s.max_ns = spread.max_ns;
    s.median_ns = spread.median_ns;
    s.p99_ns = spread.p99_ns;
  }
  std::sort(a.ops.begin(), a.ops.end(), [](const OpSummary& x, const OpSummary& y) {
    return x.total_ns != y.total_ns ? x.total_ns > y.total_ns : x.name < y.name;
  });
  for (const OpSummary& s : a.ops)
    if (is_communication(s.name)) a.communication.push_back(s);
  for (auto& [name, ds] : devices) a.devices.push_back(ds);
  int64_t max_ns = 0, sum_ns = 0, gpus = 0;
  for (const DeviceSummary& ds : a.devices) {
    if (ds.device.rfind("gpu", 0) != 0) continue;
    ++gpus;
    sum_ns += ds.total_ns;
    max_ns = std::max(max_ns, ds.total_ns);
  }
  if (gpus >= 2 && sum_ns > 0)
    a.imbalance_ratio =
        static_cast<double>(max_ns) / (static_cast<double>(sum_ns) / static_cast<double>(gpus));
  return a;
}

}  // namespace brickprof
