// The trace's memory events and shapes, as the exit write reads them from
// the recorder's kMemory and kShapes records (pass 1 of io/trace_stream.h):
// held until the write puts them in the header, which the JSON writes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof::agent {

class MemoryEvents {
 public:
  MemoryEvents() = default;
  MemoryEvents(const MemoryEvents&) = delete;
  MemoryEvents& operator=(const MemoryEvents&) = delete;
  ~MemoryEvents();

  // Each event is charged to the budget (the write's share); past it, the
  // event is counted and the trace's warnings say how many.
  void add(const MemoryEvent& e, uint32_t name_site);
  void add_shapes(uint32_t node, uint32_t signature_site);
  // Into `trace`: the events in time order (ties: as read), their names
  // interned in its strings; shapes parsed and sorted by node (a node's
  // last record wins); a warning for what was dropped or unreadable.
  void fill(Trace& trace) const;

 private:
  std::vector<MemoryEvent> events_;
  std::vector<uint32_t> name_sites_;                  // each event's
  std::vector<std::pair<uint32_t, uint32_t>> shapes_;  // (node, signature site), as read
  uint64_t charged_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace brickprof::agent
