// The host's peak FLOP/s and memory bandwidth as the program measured them
// (brickprof_set_host_peaks), kept until exit and written as the trace's
// "cpu" devices[] entry: the roofline then compares CPU work against the
// machine it ran on instead of a table row.
#pragma once

#include "trace/model/trace.h"

namespace brickprof::agent {

// Longest `how` kept, bytes (cut at a character boundary).
constexpr size_t kHostPeaksHowBytes = 255;

// GFLOP/s and GB/s (1e9 bytes/s); 0, negative or not finite = not measured.
// `how` (may be NULL) is copied. Each call replaces the last. Thread-safe,
// no allocation, never blocks for long.
void set_host_peaks(double gflops, double gbps, const char* how);
// The L1, L2 and L3 read bandwidths (GB/s) one thread measured
// (brickprof_set_cache_bandwidth); the same rules, kept apart from the peaks.
void set_cache_bandwidth(double l1_gbps, double l2_gbps, double l3_gbps);

// Appends the "cpu" entry (id kHostDeviceId) when the last calls measured
// anything (peaks or cache bandwidths). Safe in the dump's signal handler: it waits only briefly
// for a set in progress and otherwise says so in diagnostics.warnings.
void add_host_device(Trace& trace);

// In a forked child: a thread of the parent may have held the lock.
void host_peaks_after_fork();

}  // namespace brickprof::agent
