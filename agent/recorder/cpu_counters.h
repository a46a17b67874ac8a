// The CPU's counters per scope (BRICKPROF_CPU_COUNTERS): each thread opens
// one perf_event_open group of its own (on its first recorded scope; closed
// when it exits; a fork child opens its own), reads it when a scope opens
// and again when it closes, and the recorder writes the difference before
// the pop (a kCpuCounters record), so the exit write gives it to that node.
// Internal to the recorder (recorder.cpp calls it on its hot path).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/model/cpu_counters.h"

namespace brickprof::agent::cpu_counters {

enum class Mode { kOff, kHardware, kSoftware };

// Opens a group on the calling thread to learn whether the machine lets us
// count (and closes it); true when it does, and then every thread's scopes
// read theirs from now on. When it does not, nothing changes but status().
bool start(Mode mode);
// Read on every recorded push and pop: inline, one relaxed load.
extern std::atomic<bool> g_active;
inline bool active() { return g_active.load(std::memory_order_relaxed); }

// After a push was recorded: the thread's counters as the scope opens.
void scope_opened();
// Before its pop is recorded: what the thread counted since the matching
// scope_opened(), in `delta` (event_names()' order); false when nothing was
// read for it (the thread has no group, or the scopes nest too deep).
bool scope_closing(uint64_t delta[kMaxCpuCounters]);

// The counters each reading holds, as perf names them.
const std::vector<std::string>& event_names();
// For the trace's diagnostics: "off", "software: task-clock, ...", or
// "none (no PMU: perf_event_open(cycles) failed: ENOENT)"; threads that
// could not open their own group are counted there.
std::string status();

// In a fork child: the inherited groups count the parent's threads; the
// child's thread opens its own on its next scope.
void reset_after_fork();

}  // namespace brickprof::agent::cpu_counters
