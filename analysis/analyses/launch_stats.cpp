// Kernel launch statistics (see launch_stats.h).
#include "analysis/analyses/launch_stats.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace brickprof {
namespace {

// The measured values of one quantity, before they become a Spread.
struct Samples {
  std::vector<int64_t> values;
  void add(int64_t v) { values.push_back(v); }
  Spread spread() { return spread_of(values); }
};

struct KernelSamples {
  Samples gpu, call, delay;
  uint64_t shorter = 0;
  int64_t shorter_gpu_ns = 0;
};

struct GraphLaunch {
  int64_t call_ns = -1;  // -1: no API times
  int64_t first_start = 0;
  int64_t api_start = 0;
};

bool has_call(const GpuDetail& d) { return d.api_start_ns > 0 && d.api_end_ns >= d.api_start_ns; }

}  // namespace

LaunchStats analyze_launches(const Trace& t) {
  LaunchStats r;
  std::map<std::pair<StringId, bool>, KernelSamples> by_kernel;
  Samples call, delay;
  // Graph launches by (launching thread, correlation id): ids are per
  // process, and a merged trace gives each process its own threads.
  std::unordered_map<uint64_t, GraphLaunch> graph_launches;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kKernel || n.detail == kNoDetail) continue;
    const GpuDetail& d = t.gpu[n.detail];
    const bool whole_graph = d.graph_id != 0 && d.graph_node == 0;
    const bool from_graph = d.graph_node != 0 || whole_graph;
    KernelSamples& k = by_kernel[{n.name, from_graph}];
    const int64_t gpu_ns = std::max<int64_t>(0, n.duration_ns());
    k.gpu.add(gpu_ns);
    if (whole_graph) {
      ++r.graph.whole;
    } else {
      ++r.kernels;
      if (from_graph) ++r.graph.kernels;
    }
    if (from_graph) {
      const uint64_t key = (static_cast<uint64_t>(n.thread) << 40) ^ d.correlation;
      auto [it, first] = graph_launches.try_emplace(key);
      GraphLaunch& g = it->second;
      if (first) {
        g.first_start = n.start_ns;
        g.api_start = d.api_start_ns;
        if (has_call(d)) g.call_ns = d.api_end_ns - d.api_start_ns;
      }
      g.first_start = std::min(g.first_start, n.start_ns);
      if (d.api_start_ns > 0) k.delay.add(std::max<int64_t>(0, n.start_ns - d.api_start_ns));
      continue;
    }
    ++r.direct;
    r.direct_gpu_ns += gpu_ns;
    if (d.api_start_ns > 0) {
      const int64_t wait = std::max<int64_t>(0, n.start_ns - d.api_start_ns);
      k.delay.add(wait);
      delay.add(wait);
    }
    if (has_call(d)) {
      const int64_t call_ns = d.api_end_ns - d.api_start_ns;
      k.call.add(call_ns);
      call.add(call_ns);
      if (gpu_ns < call_ns) {
        ++k.shorter;
        k.shorter_gpu_ns += gpu_ns;
      }
    }
  }
  r.call = call.spread();
  r.delay = delay.spread();

  Samples graph_call, graph_delay;
  for (const auto& [key, g] : graph_launches) {
    if (g.call_ns >= 0) graph_call.add(g.call_ns);
    if (g.api_start > 0) graph_delay.add(std::max<int64_t>(0, g.first_start - g.api_start));
  }
  r.graph.launches = graph_launches.size();
  r.graph.call = graph_call.spread();
  r.graph.first_delay = graph_delay.spread();

  for (auto& [key, k] : by_kernel) {
    KernelLaunches out;
    out.name = std::string(t.strings.view(key.first));
    out.from_graph = key.second;
    out.count = k.gpu.values.size();
    out.gpu = k.gpu.spread();
    out.call = k.call.spread();
    out.delay = k.delay.spread();
    out.shorter_than_call = k.shorter;
    out.shorter_gpu_ns = k.shorter_gpu_ns;
    r.shorter_than_call += k.shorter;
    r.shorter_gpu_ns += k.shorter_gpu_ns;
    r.by_kernel.push_back(std::move(out));
  }
  // Most GPU time first; ties by name, direct launches first: the same
  // order however the trace's names were interned.
  std::sort(r.by_kernel.begin(), r.by_kernel.end(),
            [](const KernelLaunches& a, const KernelLaunches& b) {
              if (a.gpu.total_ns != b.gpu.total_ns) return a.gpu.total_ns > b.gpu.total_ns;
              if (a.name != b.name) return a.name < b.name;
              return a.from_graph < b.from_graph;
            });
  return r;
}

}  // namespace brickprof
