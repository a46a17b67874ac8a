// The CPU's counters per scope (trace/model/cpu_counters.h) as `report
// --cpu-counters` reads them: each name's scopes added up (bricks first,
// then layers and scopes), with the ratios a user judges a CPU kernel by:
// instructions per cycle, the cache miss rate, LLC misses per thousand
// instructions; with software events, the share of the wall time the
// thread was on a CPU (task-clock over the scopes' time).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

struct CpuCounterRow {
  std::string name;
  NodeKind kind = NodeKind::kScope;
  uint64_t scopes = 0;   // nodes of this name with counters
  int64_t total_ns = 0;  // their wall time (nested ones of the same name count twice, as in
                         // the summary's brick table)
  std::array<uint64_t, kMaxCpuCounters> values{};
  // Absent when the counters it needs were not read (or would divide by 0).
  std::optional<double> ipc;              // instructions / cycles
  std::optional<double> cache_miss_rate;  // cache-misses / cache-references
  std::optional<double> llc_mpki;         // LLC-load-misses per 1000 instructions
  std::optional<double> on_cpu_share;     // task-clock (ns) / total_ns
};

struct CpuCounterReport {
  std::string status;               // diagnostics.cpu_counters
  std::vector<std::string> events;  // as the trace names them
  std::vector<CpuCounterRow> rows;  // bricks, then layers and scopes; by first appearance
};

CpuCounterReport analyze_cpu_counters(const Trace& trace);

}  // namespace brickprof
