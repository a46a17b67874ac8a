// What the CPU counters counted per node (see cpu_counter_events.h).
#include "agent/io/cpu_counter_events.h"

#include <algorithm>
#include <string>

#include "agent/recorder/budget.h"
#include "agent/recorder/cpu_counters.h"

namespace brickprof::agent {

CpuCounterEvents::~CpuCounterEvents() { budget::release(charged_); }

void CpuCounterEvents::add(uint32_t node, const uint64_t* values) {
  if (!budget::charge_for_write(sizeof(NodeCpuCounters))) {
    ++dropped_;
    return;
  }
  charged_ += sizeof(NodeCpuCounters);
  NodeCpuCounters n;
  n.node = node;
  std::copy(values, values + kMaxCpuCounters, n.values.begin());
  nodes_.push_back(n);
}

void CpuCounterEvents::fill(Trace& trace) const {
  CpuCounters& out = trace.cpu_counters;
  out = CpuCounters{};
  if (nodes_.empty()) return;
  out.events = cpu_counters::event_names();
  out.nodes = nodes_;
  // Threads are walked one after another, each in id order: sorted already
  // but for interleaved threads.
  std::sort(out.nodes.begin(), out.nodes.end(),
            [](const NodeCpuCounters& a, const NodeCpuCounters& b) { return a.node < b.node; });
  if (dropped_ > 0)
    trace.diagnostics.warnings.push_back(
        std::to_string(dropped_) +
        " scopes' CPU counters left out: they did not fit BRICKPROF_BUFFER_MB");
}

}  // namespace brickprof::agent
