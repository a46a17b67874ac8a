// Facts about the host process for the trace header: pid, program, command
// line, host, MPI rank, thread names.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/trace.h"

namespace brickprof::agent {

// Rank from the usual launchers' variables (OMPI, PMI, Slurm, torchrun), or -1.
int64_t detect_rank();
// `noted_names`: thread names the recorder saw (tid -> name), used for
// threads that have exited by now.
void fill_process_info(Trace& trace, int64_t start_ns, int64_t end_ns,
                       const std::map<uint32_t, std::string>& noted_names);
// The same in two parts, for a trace whose nodes are not held: the
// process, and the threads `tids` (the threads nodes are on).
ProcessInfo process_info(int64_t start_ns, int64_t end_ns);
std::vector<ThreadInfo> thread_infos(const std::set<uint32_t>& tids,
                                     const std::map<uint32_t, std::string>& noted_names);

}  // namespace brickprof::agent
