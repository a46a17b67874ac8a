// This rank's part of the job summary (trace/model/job_summary.h): one walk
// of what the recorder holds at MPI_Finalize, with the walk the exit write
// uses (recorder/thread_walk.h), so a node's times are the trace's. Only
// closed nodes count: a scope still open at MPI_Finalize ends later in the
// trace, so it is counted as open here, not guessed. Bounded: at most
// kMaxNames bricks and kernels each and kMaxCollectives collective calls
// (the first ones); what is left out is counted.
#pragma once

#include <cstdint>
#include <functional>

#include "agent/lifecycle/agent.h"
#include "trace/model/comm.h"
#include "trace/model/job_summary.h"

namespace brickprof::agent::mpi {

inline constexpr size_t kMaxNames = 256;
inline constexpr size_t kMaxCollectives = 1024;

// Fills a collective's arguments (not its times) from a scope's recorded
// element count; false for any scope that is not a collective call.
using CollectiveOf = std::function<bool(uint64_t recorded, CollectiveArrival* out)>;

// Everything but rank, pid, host and the cost, which the caller knows.
// `sync`: this rank's clock against rank 0's (empty for rank 0).
RankSummary summarize_rank(const RecordingSoFar& so_far, const CollectiveOf& collective_of,
                           const ClockSync& sync);

}  // namespace brickprof::agent::mpi
