// Which ranks of the job have the agent, learned in MPI_Init without an
// MPI message of the agent's own: a rank without the agent never joins a
// collective or answers a message, and a program's wildcard receive would
// take one meant for an agent. The ranks ask through PMIx (pmix.h), with
// rank 0 deciding who is in, so that every member sees the same list:
//   1. every rank with the agent publishes "brickprof.agent";
//   2. any other rank looks for rank 0's (kAgentWaitS); if it is there,
//      it publishes "brickprof.ready";
//   3. rank 0 looks for every other rank's ready, all at once
//      (kReadyWaitS), and publishes the ready ones as "brickprof.members";
//   4. a ready rank reads the members (rank 0 publishes them within its
//      wait).
// A wait that runs out only leaves a rank out (its trace says so), never
// in on one side and out on the other. The clock exchange (clock_sync.h)
// is then collective over the members alone. A job with every rank
// preloaded pays milliseconds; one with some ranks without the agent, at
// most one wait (rank 0's, or the others' for rank 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent::mpi {

struct Peers {
  // World ranks whose clocks are measured together, rank 0 first; this
  // rank is among them. Empty: none (this rank's clock is not aligned).
  std::vector<int> members;
  // What the trace says when not every rank of the job is a member.
  std::string note;
};

// In MPI_Init, once PMPI_Init returned; every rank with the agent calls it.
Peers find_peers(int64_t world_rank, int64_t world_size);

}  // namespace brickprof::agent::mpi
