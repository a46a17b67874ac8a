// `brickprof report JOB.json` and `view JOB.json`: a job summary
// (trace/model/job_summary.h) as text or JSON, with its cross-rank figures
// (job_figures.h). A job summary is not a trace: these are its only views.
#pragma once

#include <ostream>

#include "analysis/analyses/job_figures.h"
#include "trace/model/job_summary.h"

namespace brickprof {

// The per-rank table, the bricks and kernels over all ranks, the
// collectives (per op, per rank, the instances with the most skew and
// their arrival order), the notes and what the reduction cost.
void job_summary_text(const JobSummary& job, const JobFigures& figures, std::ostream& out);
// The same figures, every collective instance listed.
void job_summary_json(const JobSummary& job, const JobFigures& figures, std::ostream& out);

}  // namespace brickprof
