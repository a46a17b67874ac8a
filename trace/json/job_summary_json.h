// The job summary as JSON ("brickprof-job/1", trace/README.md): written by
// rank 0's agent at MPI_Finalize, read by `brickprof report` and `view`.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "trace/model/job_summary.h"

namespace brickprof {

// The whole summary, with the statistics of all ranks combined
// (combine_stats) beside each rank's own.
void write_job_summary_json(const JobSummary& job, std::ostream& out);

// Whether `head` (a file's first bytes) names the job summary's schema.
bool looks_like_job_summary(std::string_view head);

// Reader half (trace_reader_dep). Throws TraceError (trace_json.h): the
// message says what is wrong and where; read_job_summary_file's starts
// with the path.
JobSummary parse_job_summary_json(std::string_view json);
JobSummary read_job_summary_file(const std::string& path);

}  // namespace brickprof
