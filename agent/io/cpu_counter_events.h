// What the CPU counters counted per node, as the exit write reads the
// recorder's kCpuCounters records (pass 1 of io/trace_stream.h): held until
// the write puts them in the header, which the JSON writes.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof::agent {

class CpuCounterEvents {
 public:
  CpuCounterEvents() = default;
  CpuCounterEvents(const CpuCounterEvents&) = delete;
  CpuCounterEvents& operator=(const CpuCounterEvents&) = delete;
  ~CpuCounterEvents();

  // `values`: kMaxCpuCounters of them. Each node is charged to the budget
  // (the write's share); past it, it is counted and the trace's warnings
  // say how many.
  void add(uint32_t node, const uint64_t* values);
  // Into `trace`: the nodes in id order and the counters' names.
  void fill(Trace& trace) const;

 private:
  std::vector<NodeCpuCounters> nodes_;
  uint64_t charged_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace brickprof::agent
