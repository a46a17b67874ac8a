// The agent's life cycle: one idempotent start from whichever entry point
// comes first (LD_PRELOAD constructor, CUDA or NVTX injection), and one dump
// at exit (atexit, fatal signal, or explicit), in a known order.
#pragma once

#include "agent/config.h"

namespace brickprof::agent {

// Reads the config, calibrates the clock, starts the GPU source. Safe to
// call many times and from several threads.
void ensure_started();
// Flushes GPU records, builds the trace, writes the outputs. Runs once.
void dump_at_exit();
// Valid after ensure_started().
const Config& config();

}  // namespace brickprof::agent
