// The job summary: what each rank of an MPI job recorded up to
// MPI_Finalize, reduced in place to rank 0 by the agents (agent/mpi/
// job_summary.h) and written there as <prefix>-job.json (schema
// "brickprof-job/1", trace/README.md), so a job of any size gets its
// per-rank table, its cross-rank brick and kernel statistics and its
// collectives' arrival order without one trace being moved or merged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/comm.h"
#include "trace/model/trace.h"

namespace brickprof {

inline constexpr std::string_view kJobSchema = "brickprof-job/1";

// Time statistics of one name: a brick's CPU-side durations, or a kernel's
// GPU durations.
struct TimeStat {
  std::string name;
  Category category = Category::kOther;  // bricks; kernels: Other or Communication (NCCL)
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;

  // Adds `other`'s figures (same name): counts and totals add, extremes meet.
  void absorb(const TimeStat& other);
  void add(int64_t duration_ns);
};

// One collective call of a rank, on rank 0's clock (its ClockSync applied
// as `merge` applies it), keyed by (communicator key, seq) as the
// collectives view matches calls across ranks.
struct CollectiveArrival {
  uint64_t comm_key = 0;
  uint64_t seq = 0;
  CommOp op = CommOp::kBarrier;
  int32_t root = -1;  // rooted ops: the root's rank in the communicator
  int32_t comm_rank = -1;
  int32_t comm_size = 0;
  uint64_t bytes = 0;
  int64_t arrival_ns = 0;
  int64_t end_ns = 0;
};

// A memory account's peak on one rank: the account as report --memory
// labels it ("GPU 0 device memory", "program pool \"kv_cache\" on host").
struct MemoryPeak {
  std::string account;
  uint64_t peak_bytes = 0;
};
inline constexpr size_t kMaxMemoryPeaks = 64;

struct RankSummary {
  int64_t rank = -1;  // in MPI_COMM_WORLD
  int64_t pid = 0;
  std::string host;
  bool clock_aligned = false;  // its times are on rank 0's clock (always true for rank 0)
  int64_t first_ns = 0;        // its first recorded scope's start (rank 0's clock)
  int64_t last_ns = 0;         // its last closed scope's end
  uint64_t scopes = 0;         // closed CPU nodes summarised
  uint64_t open_scopes = 0;    // still open at MPI_Finalize: not in the statistics
  uint64_t dropped_events = 0;
  std::vector<TimeStat> bricks;                // by first appearance
  std::vector<TimeStat> kernels;               // by first appearance
  std::vector<CollectiveArrival> collectives;  // in call order
  // What did not fit the rank's bounded record (job_summary_wire.h).
  uint64_t bricks_left_out = 0;
  uint64_t kernels_left_out = 0;
  uint64_t collectives_left_out = 0;
  // Each memory account's peak (its highest live bytes) per the rank's
  // memory events up to MPI_Finalize, by the rule report --memory follows
  // (trace/derive/memory_accounts.h), in order of first change; at most
  // kMaxMemoryPeaks, the rest counted. Empty when it recorded none.
  std::vector<MemoryPeak> memory_peaks;
  uint64_t memory_peaks_left_out = 0;
  // The cost of the summary on this rank: building it, and its bytes on
  // the wire to rank 0.
  int64_t summarize_ns = 0;
  uint64_t wire_bytes = 0;
  std::string note;  // why kernels are not summarised, etc.; "" if nothing
};

struct JobSummary {
  int64_t world_size = 0;
  std::string program;
  std::string launcher;
  std::string job;
  std::vector<RankSummary> ranks;  // members, by rank
  std::vector<std::string> notes;  // ranks without the agent, records cut
  // The reduction as rank 0 measured it: the first gather (the records'
  // sizes; it ends when the last member reaches MPI_Finalize, so it holds
  // that wait), the second (the records), and rank 0 unpacking them (the
  // file is written after).
  int64_t gather_sizes_ns = 0;
  int64_t gather_records_ns = 0;
  int64_t unpack_ns = 0;
  uint64_t gathered_bytes = 0;
};

// The statistics of every rank, summed per name (bricks, kernels): counts
// and totals add up, min and max over all ranks. In order of first
// appearance, rank by rank.
std::vector<TimeStat> combine_stats(const JobSummary& job, bool kernels);

}  // namespace brickprof
