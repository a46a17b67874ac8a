// The CPU's counters per brick and scope (see cpu_counters.h).
#include "analysis/analyses/cpu_counters.h"

#include <algorithm>
#include <string_view>

#include "analysis/analyses/rows_by_kind_and_name.h"

namespace brickprof {
namespace {

// The index of `name` among the events, or -1.
int event_index(const std::vector<std::string>& events, std::string_view name) {
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i] == name) return static_cast<int>(i);
  return -1;
}

std::optional<double> ratio(const CpuCounterRow& r, int num, int den, double scale = 1) {
  if (num < 0 || den < 0 || r.values[den] == 0) return std::nullopt;
  return scale * static_cast<double>(r.values[num]) / static_cast<double>(r.values[den]);
}

}  // namespace

CpuCounterReport analyze_cpu_counters(const Trace& trace) {
  CpuCounterReport r;
  r.status = trace.diagnostics.cpu_counters;
  const CpuCounters& c = trace.cpu_counters;
  r.events = c.events;
  RowsByKindAndName row_of(trace);
  for (const NodeCpuCounters& n : c.nodes) {
    if (n.node >= trace.nodes.size()) continue;
    const Node& node = trace.nodes[n.node];
    const auto [index, fresh] = row_of.add(node);
    if (fresh) {
      r.rows.emplace_back();
      r.rows.back().name = std::string(trace.name(node));
      r.rows.back().kind = node.kind;
    }
    CpuCounterRow& row = r.rows[index];
    ++row.scopes;
    row.total_ns += node.end_ns - node.start_ns;
    for (size_t i = 0; i < kMaxCpuCounters; ++i) row.values[i] += n.values[i];
  }
  std::stable_sort(r.rows.begin(), r.rows.end(),
                   [](const CpuCounterRow& a, const CpuCounterRow& b) {
                     return row_kind_rank(a.kind) < row_kind_rank(b.kind);
                   });
  const int cycles = event_index(r.events, "cycles");
  const int instructions = event_index(r.events, "instructions");
  const int references = event_index(r.events, "cache-references");
  const int misses = event_index(r.events, "cache-misses");
  const int llc = event_index(r.events, "LLC-load-misses");
  const int task_clock = event_index(r.events, "task-clock");
  for (CpuCounterRow& row : r.rows) {
    row.ipc = ratio(row, instructions, cycles);
    row.cache_miss_rate = ratio(row, misses, references);
    row.llc_mpki = ratio(row, llc, instructions, 1000);
    if (task_clock >= 0 && row.total_ns > 0)
      row.on_cpu_share =
          static_cast<double>(row.values[task_clock]) / static_cast<double>(row.total_ns);
  }
  return r;
}

}  // namespace brickprof
