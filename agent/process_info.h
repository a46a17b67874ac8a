// Facts about the host process for the trace header: pid, program, command
// line, host, MPI rank, thread names; and whether it is the process the
// user started.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/config.h"
#include "analysis/trace.h"

namespace brickprof::agent {

// Rank from the usual launchers' variables (OMPI, PMI, Slurm, torchrun), or -1.
int64_t detect_rank();
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
