// The reduction of every member's summary to rank 0 (see job_summary.h).
#include "agent/mpi/job_summary.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <vector>

#include "agent/io/config.h"
#include "agent/io/log.h"
#include "agent/io/output.h"
#include "agent/io/process_info.h"
#include "agent/lifecycle/agent.h"
#include "agent/mpi/calls.h"
#include "agent/mpi/rank_summary.h"
#include "agent/mpi/summary_wire.h"
#include "trace/json/job_summary_json.h"
#include "trace/output/output_name.h"
#include "trace/output/sink.h"

namespace brickprof::agent::mpi {
namespace {

using GatherFn = int(const void*, int, Handle, void*, int, Handle, int, Handle);
using GathervFn = int(const void*, int, Handle, void*, const int*, const int*, Handle, int, Handle);
Pmpi<GatherFn> pmpi_gather("PMPI_Gather");
Pmpi<GathervFn> pmpi_gatherv("PMPI_Gatherv");

std::string host_name() {
  char host[256] = {0};
  return gethostname(host, sizeof host - 1) == 0 ? host : "";
}

// This rank's record, at most `limit` bytes: the walk of its events, or
// an empty one if the trace is written already (a thread called exit
// meanwhile). Past the limit its collectives go first.
std::string this_rank(const JobContext& context, size_t limit) {
  const int64_t start = monotonic_ns();
  RankSummary mine;
  const bool read = read_recording_so_far([&](const RecordingSoFar& so_far) {
    mine = summarize_rank(so_far, collective_of, context.clock_sync);
  });
  if (!read) mine.note = "nothing summarised: the trace was written before MPI_Finalize";
  mine.rank = context.world_rank;
  mine.pid = getpid();
  mine.host = host_name();
  mine.clock_aligned = context.world_rank == 0 || !context.clock_sync.samples.empty();
  mine.summarize_ns = monotonic_ns() - start;
  std::string packed = pack_summary(mine);
  if (packed.size() > limit) {
    mine.collectives_left_out += mine.collectives.size();
    mine.collectives.clear();
    packed = pack_summary(mine);
  }
  if (packed.size() > limit) packed.clear();
  return packed;
}

void write_job(JobSummary& job, const JobContext& context, const std::vector<int>& sizes,
               const std::string& bytes) {
  const int64_t start = monotonic_ns();
  const ProcessInfo p = process_info(0, 0, CmdlineMode::kNone);
  job.world_size = context.world_size;
  job.program = p.program;
  job.launcher = p.launcher;
  job.job = p.job;
  if (!context.peers_note.empty()) job.notes.push_back(context.peers_note);
  size_t at = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    RankSummary r;
    const std::string_view record(bytes.data() + at, static_cast<size_t>(sizes[i]));
    at += static_cast<size_t>(sizes[i]);
    if (!unpack_summary(record, &r)) {
      job.notes.push_back("member " + std::to_string(i) +
                          " of the job summary sent no readable record (" +
                          std::to_string(sizes[i]) + " bytes)");
      continue;
    }
    r.wire_bytes = static_cast<uint64_t>(sizes[i]);
    if (r.collectives_left_out)
      job.notes.push_back("rank " + std::to_string(r.rank) + ": " +
                          std::to_string(r.collectives_left_out) +
                          " collective calls past the first " + std::to_string(kMaxCollectives) +
                          " are not in the summary");
    if (r.bricks_left_out || r.kernels_left_out)
      job.notes.push_back("rank " + std::to_string(r.rank) + ": names past the first " +
                          std::to_string(kMaxNames) + " are not in the summary (" +
                          std::to_string(r.bricks_left_out) + " bricks, " +
                          std::to_string(r.kernels_left_out) + " kernels)");
    job.ranks.push_back(std::move(r));
  }
  const std::string path = job_summary_path(config().output, context.world_size,
                                            static_cast<long>(p.pid), p.host, p.program);
  job.unpack_ns = monotonic_ns() - start;  // the file's own write is after: not in it
  FileSizeSignalHeld held;  // past RLIMIT_FSIZE the write fails; SIGXFSZ never kills the host
  const std::string error =
      write_file_atomically(path, [&](std::ostream& out) { write_job_summary_json(job, out); });
  if (error.empty())
    log_info("wrote " + path);
  else
    log_warn("job summary not written: " + error);
}

}  // namespace

std::string job_summary_path(const std::string& output_pattern, int64_t world_size, long pid,
                             const std::string& host, const std::string& program) {
  const std::string given = output_prefix_pattern(output_pattern);
  std::string pattern = pattern_for_job(given, world_size);
  if (pattern != given) pattern.resize(given.size());  // the "-r%r" a job adds
  std::string out;
  bool rank_named = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      if (pattern[i + 1] == 'r') {
        out += "job";
        rank_named = true;
      } else {
        out += pattern.substr(i, 2);
      }
      ++i;
      continue;
    }
    out += pattern[i];
  }
  if (!rank_named) out += "-job";
  return expand_output_prefix(out, pid, 0, host, program) + ".json";
}

void reduce_job_summary(Handle members, const JobContext& context) {
  auto* gather = pmpi_gather.get();
  auto* gatherv = pmpi_gatherv.get();
  auto* size_of = pmpi_comm_size.get();
  auto* rank_of = pmpi_comm_rank.get();
  const Abi& a = abi();
  int size = 0, rank = -1;
  if (!members || !gather || !gatherv || !size_of || !rank_of || !a.byte_type ||
      size_of(members, &size) != kSuccess || rank_of(members, &rank) != kSuccess || size < 2)
    return;
  // Rank 0 receives every record into one buffer counted by int.
  const size_t limit = std::min<size_t>(kMaxWireBytes, (INT_MAX - 1) / static_cast<size_t>(size));
  std::string mine;
  try {
    mine = this_rank(context, limit);
  } catch (...) {
    mine.clear();  // an empty record: rank 0 says so
  }
  // Every member joins both gathers, whatever it has to send.
  const int64_t start = monotonic_ns();
  const int bytes = static_cast<int>(mine.size());
  // The sizes travel as bytes (an int each): MPI_BYTE's handle is known
  // for either ABI, MPI_INT's would be one more to look up.
  constexpr int kIntBytes = static_cast<int>(sizeof(int));
  std::vector<int> sizes(rank == 0 ? static_cast<size_t>(size) : 0);
  if (gather(&bytes, kIntBytes, a.byte_type, sizes.data(), kIntBytes, a.byte_type, 0, members) !=
      kSuccess)
    return;
  const int64_t sizes_gathered = monotonic_ns();
  std::vector<int> offsets(sizes.size());
  std::string all;
  if (rank == 0) {
    int64_t total = 0;  // at most INT_MAX - 1: each member kept to `limit`
    for (size_t i = 0; i < sizes.size(); ++i) {
      offsets[i] = static_cast<int>(total);
      total += sizes[i];
    }
    all.resize(static_cast<size_t>(total));
  }
  if (gatherv(mine.data(), bytes, a.byte_type, all.data(), sizes.data(), offsets.data(),
              a.byte_type, 0, members) != kSuccess)
    return;
  if (rank != 0) return;
  JobSummary job;
  job.gather_sizes_ns = sizes_gathered - start;
  job.gather_records_ns = monotonic_ns() - sizes_gathered;
  job.gathered_bytes = all.size();
  try {
    write_job(job, context, sizes, all);
  } catch (...) {
    log_warn("job summary not written: out of memory");
  }
}

}  // namespace brickprof::agent::mpi
