// Whether the traces given to `merge` are the ranks of one job (see
// trace_merge.h): one file per rank, each rank once, of the same job and
// world size.
#include <map>

#include "analysis/analyses/trace_merge.h"

namespace brickprof {
namespace {

struct RankOf {
  const ProcessInfo* process;
  std::string file;  // the input it came in (a merged input names its own file)
};

std::string named(const RankOf& r) {
  return r.file.empty() ? "rank " + std::to_string(r.process->rank) : r.file;
}

}  // namespace

std::string check_job_ranks(const std::vector<Trace>& inputs, const std::vector<std::string>& files,
                            bool allow_missing) {
  std::vector<RankOf> ranks;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = i < files.size() ? files[i] : "";
    if (inputs[i].sources.empty()) {
      ranks.push_back({&inputs[i].process, file});
      continue;
    }
    for (const SourceInfo& s : inputs[i].sources)
      ranks.push_back({&s.process, s.file.empty() ? file : s.file});
  }
  const RankOf* first_job = nullptr;
  for (const RankOf& r : ranks)
    if (r.process->world_size > 0) {
      first_job = &r;
      break;
    }
  if (!first_job) return {};  // no launcher recorded: runs laid side by side, as ever
  const ProcessInfo& job = *first_job->process;
  std::map<int64_t, const RankOf*> seen;
  for (const RankOf& r : ranks) {
    const ProcessInfo& p = *r.process;
    if (p.world_size <= 0 || p.rank < 0)
      return named(r) + ": not a rank of a job (no rank or world size recorded), unlike " +
             named(*first_job) + " (rank " + std::to_string(job.rank) + " of " +
             std::to_string(job.world_size) + "): merge one job's ranks";
    if (p.world_size != job.world_size)
      return named(r) + ": rank " + std::to_string(p.rank) + " of a world of " +
             std::to_string(p.world_size) + ", but " + named(*first_job) + " is of " +
             std::to_string(job.world_size) + ": not the same job";
    if (!p.job.empty() && !job.job.empty() && p.job != job.job)
      return named(r) + ": from job " + p.job + ", but " + named(*first_job) + " is from job " +
             job.job + ": not the same job";
    if (p.rank >= p.world_size)
      return named(r) + ": rank " + std::to_string(p.rank) + " in a world of " +
             std::to_string(p.world_size);
    auto [it, added] = seen.emplace(p.rank, &r);
    if (!added)
      return named(r) + ": rank " + std::to_string(p.rank) + " again (also in " +
             named(*it->second) + ")";
  }
  if (allow_missing) return {};
  for (int64_t rank = 0; rank < job.world_size; ++rank)
    if (!seen.count(rank))
      return "merge: rank " + std::to_string(rank) + " of " + std::to_string(job.world_size) +
             " is missing (" + std::to_string(seen.size()) +
             " given; --partial merges a subset of the ranks)";
  return {};
}

}  // namespace brickprof
