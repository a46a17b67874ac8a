// Puts what the MPI wrappers recorded into the trace being built: each MPI
// call's arguments on its scope node (Trace::comm_calls), the communicators,
// the world rank and size MPI reported, and the clock-sync samples.
#pragma once

#include "analysis/trace.h"

namespace brickprof::agent::mpi {

// After the replay (the call scopes are nodes) and the process facts.
// Nothing for a program that never initialised MPI.
void contribute(Trace& trace);

}  // namespace brickprof::agent::mpi
