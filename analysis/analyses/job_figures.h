// The figures a job summary (trace/model/job_summary.h) gives across its
// ranks: the per-rank table, each brick's and kernel's statistics over all
// ranks with the spread of the ranks' totals, and the collectives matched
// by (communicator, seq) with their arrival order, skew, straggler and
// waits, finished by the collectives view's own code (collectives.h), so
// they are the figures `report --collectives` gives of the merged trace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/analyses/collectives.h"
#include "trace/model/job_summary.h"

namespace brickprof {

// One name over the ranks: the statistics of every call, and how the
// ranks' own totals spread (which rank spent the most in it).
struct JobStat {
  TimeStat all;
  uint32_t ranks = 0;          // ranks that ran it
  int64_t rank_min_ns = 0;     // the smallest rank total
  int64_t rank_max_ns = 0;     // the largest rank total
  uint32_t slowest = kNoRank;  // index into JobSummary::ranks of that largest
};

struct JobRankRow {
  uint32_t index = 0;  // JobSummary::ranks
  int64_t brick_ns = 0;
  uint64_t bricks = 0;
  int64_t kernel_ns = 0;
  uint64_t kernels = 0;
};

struct JobFigures {
  std::vector<JobRankRow> rows;  // by rank
  std::vector<JobStat> bricks;   // by total, largest first
  std::vector<JobStat> kernels;  // by total, largest first
  CollectiveReport collectives;  // ranks: JobSummary::ranks, labelled "rank N"
};

JobFigures job_figures(const JobSummary& job);

}  // namespace brickprof
