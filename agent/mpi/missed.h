// MPI calls the agent sees but does not record, and ways into MPI it does
// not see at all, so that the trace says where its MPI picture has holes:
// the functions kWrapped marks counted (completion tests, MPI_Waitsome,
// persistent requests, MPI-4's large-count functions, MPI sessions), and
// the Fortran bindings, which call PMPI_ directly.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/mpi/wrapped.h"

namespace brickprof::agent::mpi {

// Calls of each counted function, by its row in kWrapped.
extern std::array<std::atomic<uint64_t>, kWrappedCount> g_counted_calls;
inline void count_call(size_t row) { g_counted_calls[row].fetch_add(1, std::memory_order_relaxed); }

// The trace's lines about them; `init_seen`: the program's MPI_Init came
// through the agent.
std::vector<std::string> missed_calls(bool init_seen);

}  // namespace brickprof::agent::mpi
