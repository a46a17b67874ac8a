// The job summary reduced in place at MPI_Finalize: every member rank
// (peers.h) summarises what it recorded (rank_summary.h), the records go
// to rank 0 over the members' own communicator (clock_sync.h: collective
// over the members alone, so a rank without the agent never meets it) by
// two gathers, the sizes then the bytes, and rank 0 writes
// <prefix>-job.json (trace/json/job_summary_json.h). No trace is merged or
// moved. Each rank sends at most kMaxWireBytes (summary_wire.h).
#pragma once

#include <cstdint>
#include <string>

#include "agent/mpi/abi.h"
#include "trace/model/comm.h"

namespace brickprof::agent::mpi {

struct JobContext {
  int64_t world_rank = -1;
  int64_t world_size = 0;
  ClockSync clock_sync;    // this rank's, both samples taken
  std::string peers_note;  // rank 0: which ranks have no agent
};

// Every member calls it, in MPI_Finalize before PMPI_Finalize, with the
// members' communicator; no lock of the agent's held (it calls PMPI).
// Never throws; a rank that cannot summarise still joins both gathers.
void reduce_job_summary(Handle members, const JobContext& context);

// Where rank 0 writes it: the trace's output pattern with the rank part
// ("-r%r", added for a job, or the user's own %r) as "job".
std::string job_summary_path(const std::string& output_pattern, int64_t world_size, long pid,
                             const std::string& host, const std::string& program);

}  // namespace brickprof::agent::mpi
