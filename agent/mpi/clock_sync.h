// The clock offset of this rank to rank 0, measured over PMPI by ping-pong
// as Score-P does: round trips until one is fast (bounded in count and
// time), the one with the least round-trip time kept (its error is at most
// half that time). Taken at MPI_Init and
// again at MPI_Finalize, so the two samples also give the drift.
#pragma once

#include "agent/mpi/abi.h"
#include "analysis/model/comm.h"

namespace brickprof::agent::mpi {

// A duplicate of MPI_COMM_WORLD for the exchanges, so they never meet the
// program's own messages; MPI_COMM_WORLD itself if the duplicate fails.
// Collective: every rank calls it, inside MPI_Init.
Handle start_clock_sync();
void end_clock_sync(Handle* comm);

// Rank 0 answers every other rank in turn; the others each fill `sample`
// (local - rank 0, on this agent's clock) and return true. Collective.
bool measure_clock(Handle comm, ClockSync::Sample* sample);

}  // namespace brickprof::agent::mpi
