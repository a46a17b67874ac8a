// Cross-rank figures of a job summary (see job_figures.h).
#include "analysis/analyses/job_figures.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace brickprof {
namespace {

std::vector<JobStat> spread(const JobSummary& job, bool kernels) {
  std::vector<JobStat> out;
  for (TimeStat& s : combine_stats(job, kernels)) out.push_back(JobStat{std::move(s)});
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < out.size(); ++i) index.emplace(out[i].all.name, i);
  for (uint32_t r = 0; r < job.ranks.size(); ++r)
    for (const TimeStat& s : kernels ? job.ranks[r].kernels : job.ranks[r].bricks) {
      JobStat& j = out[index.at(s.name)];
      j.rank_min_ns = j.ranks ? std::min(j.rank_min_ns, s.total_ns) : s.total_ns;
      if (j.ranks == 0 || s.total_ns > j.rank_max_ns) {
        j.rank_max_ns = s.total_ns;
        j.slowest = r;
      }
      ++j.ranks;
    }
  std::stable_sort(out.begin(), out.end(), [](const JobStat& a, const JobStat& b) {
    return a.all.total_ns > b.all.total_ns;
  });
  return out;
}

// Matched as analyze_collectives matches a merged trace's calls: by
// (communicator key, seq), instances in order of first sight (rank by
// rank, each rank's calls in order), the op, size, root and bytes of the
// first call seen.
CollectiveReport match_collectives(const JobSummary& job) {
  CollectiveReport r;
  for (const RankSummary& rank : job.ranks)
    r.ranks.ranks.push_back({rank.rank, "rank " + std::to_string(rank.rank), 0});
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> found;
  std::vector<std::vector<CollectiveCall>> calls;
  for (uint32_t ri = 0; ri < job.ranks.size(); ++ri)
    for (const CollectiveArrival& a : job.ranks[ri].collectives) {
      auto [it, added] = found.emplace(std::make_pair(a.comm_key, a.seq),
                                       static_cast<uint32_t>(r.instances.size()));
      if (added) {
        CollectiveInstance inst;
        inst.op = a.op;
        inst.seq = a.seq;
        inst.comm_size = a.comm_size;
        inst.root = a.root;
        inst.bytes = a.bytes;
        r.instances.push_back(inst);
        calls.emplace_back();
      }
      CollectiveCall c;
      c.rank = ri;
      c.comm_rank = a.comm_rank;
      c.arrival_ns = a.arrival_ns;
      c.end_ns = a.end_ns;
      calls[it->second].push_back(c);
    }
  for (size_t i = 0; i < r.instances.size(); ++i) {
    r.instances[i].first_call = static_cast<uint32_t>(r.calls.size());
    r.instances[i].call_count = static_cast<uint32_t>(calls[i].size());
    r.calls.insert(r.calls.end(), calls[i].begin(), calls[i].end());
  }
  finish_collectives(r);
  return r;
}

}  // namespace

JobFigures job_figures(const JobSummary& job) {
  JobFigures f;
  for (uint32_t i = 0; i < job.ranks.size(); ++i) {
    JobRankRow row;
    row.index = i;
    for (const TimeStat& s : job.ranks[i].bricks) {
      row.brick_ns += s.total_ns;
      row.bricks += s.count;
    }
    for (const TimeStat& s : job.ranks[i].kernels) {
      row.kernel_ns += s.total_ns;
      row.kernels += s.count;
    }
    f.rows.push_back(row);
  }
  f.bricks = spread(job, false);
  f.kernels = spread(job, true);
  f.collectives = match_collectives(job);
  return f;
}

}  // namespace brickprof
