// Facts about the host process for the trace header: pid, program, command
// line, host, MPI rank, thread names; and whether it is the process the
// user started.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/io/config.h"
#include "trace/model/trace.h"

namespace brickprof::agent {

// Where a job launcher placed this process: from the first launcher whose
// rank variable is set (Open MPI's mpirun, MPICH/PMI, PMIx, Slurm's srun,
// torchrun, MVAPICH), its rank, local rank, world size and job id.
struct LaunchInfo {
  std::string launcher;  // "open-mpi", "pmi", "pmix", "slurm", "torchrun", "mvapich"; "" none
  std::string job;
  int64_t rank = -1;
  int64_t local_rank = -1;
  int64_t world_size = 0;
};
// `getenv_fn` is injectable for tests.
LaunchInfo detect_launch(const char* (*getenv_fn)(const char*));
// The output pattern a process of a job uses: in a job of several ranks, a
// pattern without %r gets "-r%r", so no two ranks write the same file
// (ranks on several hosts can share a pid, and a folder).
std::string pattern_for_job(const std::string& pattern, int64_t world_size);
// `noted_names`: thread names the recorder saw (tid -> name), used for
// threads that have exited by now. `cmdline`: how much of it to keep.
void fill_process_info(Trace& trace, int64_t start_ns, int64_t end_ns,
                       const std::map<uint32_t, std::string>& noted_names, CmdlineMode cmdline);
// The same in two parts, for a trace whose nodes are not held: the
// process, and the threads `tids` (the threads nodes are on).
ProcessInfo process_info(int64_t start_ns, int64_t end_ns, CmdlineMode cmdline);
std::vector<ThreadInfo> thread_infos(const std::set<uint32_t>& tids,
                                     const std::map<uint32_t, std::string>& noted_names);

// Whether this is the process the user started, which writes a trace even
// if it recorded nothing: the one `brickprof run` started (`run_pid`; an
// exec keeps the pid), else, without run, one whose parent does not have
// this agent (the file holding `agent_code`) loaded. Programs those run
// (helpers of a shell script, pool workers) write only what they recorded.
bool is_started_process(long run_pid, const void* agent_code);

}  // namespace brickprof::agent
