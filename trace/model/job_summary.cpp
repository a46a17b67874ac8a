// The job summary's model (see job_summary.h).
#include "trace/model/job_summary.h"

#include <algorithm>
#include <unordered_map>

namespace brickprof {

void TimeStat::add(int64_t duration_ns) {
  min_ns = count ? std::min(min_ns, duration_ns) : duration_ns;
  max_ns = count ? std::max(max_ns, duration_ns) : duration_ns;
  ++count;
  total_ns += duration_ns;
}

void TimeStat::absorb(const TimeStat& other) {
  if (other.count == 0) return;
  min_ns = count ? std::min(min_ns, other.min_ns) : other.min_ns;
  max_ns = count ? std::max(max_ns, other.max_ns) : other.max_ns;
  count += other.count;
  total_ns += other.total_ns;
}

std::vector<TimeStat> combine_stats(const JobSummary& job, bool kernels) {
  std::vector<TimeStat> out;
  std::unordered_map<std::string_view, size_t> index;
  for (const RankSummary& r : job.ranks)
    for (const TimeStat& s : kernels ? r.kernels : r.bricks) {
      auto [it, added] = index.emplace(s.name, out.size());
      if (added) {
        TimeStat first;
        first.name = s.name;
        first.category = s.category;
        out.push_back(std::move(first));
      }
      out[it->second].absorb(s);
    }
  return out;
}

}  // namespace brickprof
