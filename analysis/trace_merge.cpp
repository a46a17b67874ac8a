// Multi-rank merge (see trace_merge.h).
#include "analysis/trace_merge.h"

#include <unordered_map>

namespace brickprof {

Trace merge_traces(const std::vector<Trace>& ranks) {
  Trace out;
  out.process.program = ranks.empty() ? "" : ranks.front().process.program;
  out.process.rank = -1;
  out.process.start_ns = 0;
  std::string list;
  uint32_t next_device = 0;
  uint32_t next_thread = 1;
  uint32_t next_range_lane = kRangeLaneBase;
  std::unordered_map<uint64_t, size_t> ptx_index;  // hash -> position in out.ptx
  for (size_t r = 0; r < ranks.size(); ++r) {
    const Trace& t = ranks[r];
    int64_t rank = t.process.rank >= 0 ? t.process.rank : static_cast<int64_t>(r);
    std::string prefix = "rank " + std::to_string(rank) + ": ";
    list += (list.empty() ? "" : ", ") + std::to_string(rank) + " (pid " + std::to_string(t.process.pid) + ")";
    if (r == 0 || t.process.start_ns < out.process.start_ns) out.process.start_ns = t.process.start_ns;
    out.process.end_ns = std::max(out.process.end_ns, t.process.end_ns);
    std::unordered_map<uint32_t, uint32_t> device_map, thread_map;
    for (const Device& d : t.devices) {
      Device copy = d;
      copy.id = next_device++;
      copy.name = prefix + d.name;
      device_map[d.id] = copy.id;
      out.devices.push_back(copy);
    }
    // Range lanes stay range lanes (annotations, left out of the graph).
    auto thread_of = [&](uint32_t tid) {
      uint32_t& next = is_range_lane(tid) ? next_range_lane : next_thread;
      auto [it, added] = thread_map.emplace(tid, next);
      if (added) ++next;
      return it->second;
    };
    for (const ThreadInfo& th : t.threads)
      out.threads.push_back(ThreadInfo{thread_of(th.tid), prefix + (th.name.empty() ? std::to_string(th.tid) : th.name)});
    auto device_of = [&](uint32_t d) {
      auto [it, added] = device_map.emplace(d, next_device);
      if (added) {
        Device placeholder;
        placeholder.id = next_device++;
        placeholder.name = prefix + "device " + std::to_string(d);
        out.devices.push_back(placeholder);
      }
      return it->second;
    };
    const auto base = static_cast<uint32_t>(out.nodes.size());
    for (const Node& n : t.nodes) {
      Node copy = n;
      copy.name = out.strings.intern(t.name(n));
      copy.parent = n.parent == kNoNode ? kNoNode : n.parent + base;
      copy.thread = thread_of(n.thread);
      if (const GpuDetail* d = t.detail(n)) {
        GpuDetail g = *d;
        g.device = device_of(d->device);
        out.add_gpu_node(copy, g);
      } else {
        copy.detail = kNoDetail;
        out.add_node(copy);
      }
    }
    for (const Edge& e : t.edges) out.add_edge(e.src + base, e.dst + base, e.type);
    // Ranks load the same modules: keep one per hash, preferring one with text.
    for (const PtxModule& m : t.ptx) {
      auto [it, added] = ptx_index.emplace(m.hash, out.ptx.size());
      if (added)
        out.ptx.push_back(m);
      else if (out.ptx[it->second].source.empty() && !m.source.empty())
        out.ptx[it->second] = m;
    }
    const Diagnostics& dg = t.diagnostics;
    out.diagnostics.dropped_events += dg.dropped_events;
    out.diagnostics.dropped_activity_records += dg.dropped_activity_records;
    out.diagnostics.zero_timestamp_records += dg.zero_timestamp_records;
    out.diagnostics.unbalanced_pops += dg.unbalanced_pops;
    out.diagnostics.open_scopes_at_exit += dg.open_scopes_at_exit;
    for (const std::string& w : dg.warnings) out.diagnostics.warnings.push_back(prefix + w);
  }
  out.diagnostics.warnings.push_back("merged ranks: " + list);
  return out;
}

}  // namespace brickprof
