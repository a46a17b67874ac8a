// Merges per-rank traces into one: ids renumbered, strings re-interned, and
// each input process kept apart: its devices and threads get new ids and
// names starting "<label>: " (label "rank R"), and `sources[]` records where
// everything came from (process, file, label, old and new thread and device
// ids). The merged `process` is the first source's, with rank -1 and the
// span of all of them. Merging a merged trace keeps its sources (labels made
// unique, "rank 0 #2"). PTX modules that several ranks loaded (same hash) are
// kept once. A recorded trace with a clock-sync measurement (MPI) has its
// times moved onto rank 0's clock (offset and drift), so hosts line up.
#pragma once

#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// `files`, if given, names each input (one per trace) for sources[].file.
Trace merge_traces(const std::vector<Trace>& inputs, const std::vector<std::string>& files = {});

// Moves a recorded trace's times (nodes, GPU API calls, memory events) onto rank 0's clock
// exactly as merge_traces moves an input's, so one rank on its own (a
// Parquet shard, `brickprof export`) has the times the merged trace gives
// it. False, and nothing changed, for a trace without clock-sync samples or
// a merged one.
bool align_to_reference_clock(Trace& trace);

// Inputs from a job launcher (world size recorded) must be one job's ranks:
// same world size and job id, each rank once, none missing (unless
// `allow_missing`). "" when they are (or when none records a job), else one
// line naming the file and the problem.
std::string check_job_ranks(const std::vector<Trace>& inputs, const std::vector<std::string>& files,
                            bool allow_missing);

}  // namespace brickprof
