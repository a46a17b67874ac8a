// The few PMIx client calls the MPI wrappers make to learn which ranks of
// the job have the agent: the key-value store every PMIx launcher (Open
// MPI's mpirun, Slurm's srun --mpi=pmix, PRRTE, MPICH built with PMIx)
// keeps for its processes, outside MPI, so that asking never sends an MPI
// message and never waits on a rank that has no agent. Found among the
// objects the MPI library already loaded (nothing is linked or opened);
// used only while the MPI library holds PMIx initialised.
#pragma once

#include <cstdint>
#include <string>

namespace brickprof::agent::mpi::pmix {

// Whether the process is a PMIx client now (its MPI library started PMIx,
// and the launcher named this process's namespace and rank).
bool available();
// This process's rank in its PMIx namespace (the MPI world rank under the
// launchers above), or -1.
int64_t own_rank();

// Publishes `key` = `value` for the job's other processes (put and commit).
bool publish(const char* key, const std::string& value);

// `key` as `rank` published it, waiting at most `timeout_s` seconds for it
// (a rank that publishes it later still answers within the wait).
bool lookup(int64_t rank, const char* key, int timeout_s, std::string* value);

// The same for many ranks at once: the requests go out together and each
// answer fills found[i]; returns once all answered or `timeout_s` passed.
// A rank that never publishes costs the wait once, not once per rank.
void lookup_all(const int64_t* ranks, size_t count, const char* key, int timeout_s, bool* found);

}  // namespace brickprof::agent::mpi::pmix
