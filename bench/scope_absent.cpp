// Push+pop through the scope API in a translation unit whose lazy binding
// resolved before any agent was loaded: the "absent" cost.
#include <brickprof/brickprof.h>

#include "bench/scope_loops.h"

__attribute__((noinline)) void scope_pairs_absent(long n) {
  for (long i = 0; i < n; ++i) {
    BRICKPROF_SCOPE("absent");
    asm volatile("" ::: "memory");
  }
}
