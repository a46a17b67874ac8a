// The trace's counter samples and tokens, as the exit write reads them from
// the recorder's kCounter records (pass 1 of io/trace_stream.h): held until
// the write puts them in the header, which the JSON writes.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof::agent {

class CounterEvents {
 public:
  CounterEvents() = default;
  CounterEvents(const CounterEvents&) = delete;
  CounterEvents& operator=(const CounterEvents&) = delete;
  ~CounterEvents();

  // Each sample is charged to the budget (the write's share); past it, it
  // is counted and the trace's warnings say how many.
  void add(const CounterSample& s, uint32_t name_site);
  // Into `trace`: the samples in time order (ties: as read), their names
  // interned in its strings; a warning for what was dropped.
  void fill(Trace& trace) const;

 private:
  std::vector<CounterSample> samples_;
  std::vector<uint32_t> name_sites_;  // each sample's (kTokens: unused)
  uint64_t charged_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace brickprof::agent
