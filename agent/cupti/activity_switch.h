// CUPTI's work records (kernels, copies, memsets, ...) switched off while no
// capture window is open and on again when one opens, so that time between
// windows costs no records. agent/README.md has the lock design.
#pragma once

#include <cstdint>
#include <vector>

#include "agent/cupti/state.h"
#include "trace/model/trace.h"

namespace brickprof::agent::activity_switch {

// After start_activity: becomes capture's activity hook and switches to
// the state capture wants now. Not from inside a CUPTI callback.
void install(GpuState& state);

// The capture hook: switches now, or, from inside a CUPTI callback, marks
// the switch pending for the next API-enter callback.
void request();

// In every API-enter callback: a pending switch is made if the switch lock
// is free, else left pending. One relaxed load when nothing is pending.
void apply_pending();

// The CUPTI callback entry point brackets its work with these: a switch
// asked for in between is deferred.
void enter_callback();
void leave_callback();

// In a fork child: the switch lock is free again (a parent's thread may
// have held it, inside cuptiActivityEnable) and nothing is pending.
void reset_after_fork();

// When the records were off, in CLOCK_MONOTONIC ns; spans past the list's
// bound, and switches CUPTI refused, are counted.
struct Report {
  std::vector<TimeRange> off;
  int64_t off_since = -1;  // still off since then (the trace's end closes it), or -1
  uint64_t spans_not_listed = 0;
  uint64_t switches = 0;  // enable or disable rounds made
  uint64_t failed_calls = 0;
};
Report report();

}  // namespace brickprof::agent::activity_switch
