// Push+pop through the scope API after the agent was loaded: "disabled" and
// "recording" costs (same code; the agent's enable flag differs).
#include <brickprof/brickprof.h>

#include "bench/scope_loops.h"

__attribute__((noinline)) void scope_pairs_loaded(long n) {
  for (long i = 0; i < n; ++i) {
    BRICKPROF_SCOPE("loaded");
    asm volatile("" ::: "memory");
  }
}

void set_agent_enabled(bool on) { brickprof_set_enabled(on ? 1 : 0); }
