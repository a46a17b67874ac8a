// Roofline computation (see roofline.h). One pass to total each brick's GPU
// time, one to attribute work; aggregated by name (and device).
#include "analysis/analyses/roofline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "trace/derive/stats.h"

namespace brickprof {

double RooflineEntry::roof_gflops() const {
  if (bytes <= 0) return peaks.gflops;
  return std::min(peaks.gflops, intensity() * peaks.gbps);
}

double RooflineEntry::efficiency() const {
  double roof = roof_gflops();
  if (flops <= 0) return peaks.gbps > 0 ? gbps() / peaks.gbps : 0;  // bytes only
  return roof > 0 ? gflops() / roof : 0;
}

namespace {

// DRAM bytes read and written as the GPU's counters measured them, by node
// (NaN: not measured): a profiled kernel's own; a brick's, its kernels' sum
// where every kernel whose nearest brick it is was profiled.
std::vector<double> measured_dram_bytes(const Trace& t, const std::vector<uint32_t>& brick) {
  const size_t n = t.nodes.size();
  std::vector<double> out(n, std::nan(""));
  const GpuMetrics& g = t.gpu_metrics;
  const auto index = [&g](std::string_view name) -> int {
    for (size_t i = 0; i < g.metrics.size(); ++i)
      if (g.metrics[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int read = index("dram__bytes_read.sum"), write = index("dram__bytes_write.sum");
  if (read < 0 || write < 0) return out;
  std::vector<uint64_t> kernels(n, 0), profiled(n, 0);
  std::vector<double> sum(n, 0);
  for (uint32_t i = 0; i < n; ++i)
    if (t.nodes[i].kind == NodeKind::kKernel && brick[i] != kNoNode) ++kernels[brick[i]];
  for (const NodeGpuMetrics& k : g.nodes) {
    if (k.node >= n || std::isnan(k.values[read]) || std::isnan(k.values[write])) continue;
    out[k.node] = k.values[read] + k.values[write];
    if (brick[k.node] == kNoNode) continue;
    ++profiled[brick[k.node]];
    sum[brick[k.node]] += out[k.node];
  }
  for (uint32_t b = 0; b < n; ++b)
    if (kernels[b] > 0 && profiled[b] == kernels[b]) out[b] = sum[b];
  return out;
}

}  // namespace

Roofline compute_roofline(const Trace& t, const PeakOverrides& o) {
  Roofline r;
  const size_t n = t.nodes.size();
  std::vector<uint32_t> brick = nearest_brick(t);
  std::vector<int64_t> brick_gpu(n, 0);
  std::vector<uint32_t> brick_device(n, kNoNode);
  for (uint32_t i = 0; i < n; ++i) {
    const Node& k = t.nodes[i];
    if (k.kind != NodeKind::kKernel || brick[i] == kNoNode) continue;
    brick_gpu[brick[i]] += k.duration_ns();
    brick_device[brick[i]] = t.detail(k) ? t.detail(k)->device : 0;
  }
  const std::vector<double> measured = measured_dram_bytes(t, brick);
  Peaks cpu = cpu_peaks(t, o);
  std::map<uint32_t, Peaks> gpu;
  auto gpu_of = [&](uint32_t d) -> const Peaks& {
    auto it = gpu.find(d);
    if (it == gpu.end()) it = gpu.emplace(d, gpu_peaks(t, d, o)).first;
    return it->second;
  };
  std::map<std::tuple<int, std::string, uint32_t>, RooflineEntry> agg;
  auto add = [&](RooflineEntry::Kind kind, std::string_view name, bool on_gpu, uint32_t device,
                 int64_t time, double flops, double bytes, const char* source,
                 double measured_bytes) {
    const bool is_measured = !std::isnan(measured_bytes);
    if (is_measured) bytes = measured_bytes;
    const char* bytes_source = is_measured ? "measured" : "declared";
    auto key =
        std::make_tuple(static_cast<int>(kind), std::string(name), on_gpu ? device : kNoNode);
    auto [it, added] = agg.try_emplace(key);
    RooflineEntry& e = it->second;
    if (added) {
      e.kind = kind;
      e.name = std::string(name);
      e.gpu = on_gpu;
      e.device = device;
      e.peaks = on_gpu ? gpu_of(device) : cpu;
      e.work_source = source;
      e.bytes_source = bytes_source;
    } else if (e.work_source != source) {
      e.work_source = "mixed";
    }
    if (e.bytes_source != bytes_source) e.bytes_source = "mixed";
    e.count++;
    e.time_ns += time;
    e.flops += flops;
    e.bytes += bytes;
  };
  for (uint32_t i = 0; i < n; ++i) {
    const Node& node = t.nodes[i];
    if (node.kind == NodeKind::kBrick && (node.flops > 0 || node.bytes_moved > 0)) {
      bool on_gpu = brick_gpu[i] > 0;
      add(RooflineEntry::Kind::kBrick, t.name(node), on_gpu, on_gpu ? brick_device[i] : 0,
          on_gpu ? brick_gpu[i] : node.duration_ns(), node.flops, node.bytes_moved, "brick",
          measured[i]);
    }
    if (node.kind != NodeKind::kKernel) continue;
    uint32_t device = t.detail(node) ? t.detail(node)->device : 0;
    if (node.flops > 0 || node.bytes_moved > 0) {
      add(RooflineEntry::Kind::kKernel, t.name(node), true, device, node.duration_ns(), node.flops,
          node.bytes_moved, "kernel", measured[i]);
      continue;
    }
    uint32_t b = brick[i];
    const Node* bn = b == kNoNode ? nullptr : &t.nodes[b];
    if (!bn || (bn->flops <= 0 && bn->bytes_moved <= 0) || brick_gpu[b] <= 0) {
      r.unannotated_kernels++;
      continue;
    }
    // Unannotated kernel: its brick's work, in proportion to GPU time.
    double share = static_cast<double>(node.duration_ns()) / static_cast<double>(brick_gpu[b]);
    add(RooflineEntry::Kind::kKernel, t.name(node), true, device, node.duration_ns(),
        bn->flops * share, bn->bytes_moved * share, "brick share", measured[i]);
  }
  for (auto& [key, e] : agg) r.entries.push_back(std::move(e));
  std::stable_sort(r.entries.begin(), r.entries.end(),
                   [](const RooflineEntry& a, const RooflineEntry& b) {
                     if (a.kind != b.kind) return a.kind == RooflineEntry::Kind::kBrick;
                     return a.time_ns > b.time_ns;
                   });
  return r;
}

}  // namespace brickprof
