// The clock offset of each member rank (peers.h) to rank 0, measured over
// PMPI by ping-pong as Score-P does: round trips until one is fast
// (bounded in count and time), the one with the least round-trip time kept
// (its error is at most half that time). The members form a binary tree:
// each measures against its parent, then answers its own two children, so
// a job of N ranks takes log2(N) exchanges in turn, not N; an offset to
// rank 0 is the sum along the path, its error the sum of theirs. Taken at
// MPI_Init and again at MPI_Finalize, so the two samples also give the
// drift.
#pragma once

#include <vector>

#include "agent/mpi/abi.h"
#include "trace/model/comm.h"

namespace brickprof::agent::mpi {

// A communicator of the members alone, for the exchanges, so they never
// meet the program's own messages and never wait for a rank without the
// agent (MPI_Comm_create_group: collective over the members only); 0 if
// MPI cannot make one. Every member calls it, inside MPI_Init.
Handle start_clock_sync(const std::vector<int>& members);
void end_clock_sync(Handle* comm);

// Every member calls it. All but rank 0 fill `sample` (local - rank 0, on
// this agent's clock) and return true.
bool measure_clock(Handle comm, ClockSync::Sample* sample);

}  // namespace brickprof::agent::mpi
