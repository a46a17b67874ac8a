// Non-finite outputs and replica agreement (see numerics.h).
#include "analysis/analyses/numerics.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/analyses/trace_subset.h"

namespace brickprof {
namespace {

// Each path's digest in every source that has it; a path all sources have
// is compared, and the sources whose bytes differ from the first's named.
void compare_replicas(const Trace& trace, NumericsReport& r) {
  if (trace.sources.size() < 2) return;
  struct Seen {
    uint64_t fnv1a = 0;
    size_t sources = 0;
    std::vector<std::string> differ;
  };
  std::unordered_map<std::string, Seen> seen;
  for (size_t s = 0; s < trace.sources.size(); ++s) {
    const Subset part = source_subset(trace, s);
    for (const OutputAt& o : outputs_in_order(part.trace)) {
      Seen& entry = seen[o.path];
      if (entry.sources == 0)
        entry.fnv1a = o.checksum->digest.fnv1a;
      else if (o.checksum->digest.fnv1a != entry.fnv1a)
        entry.differ.push_back(trace.sources[s].label);
      ++entry.sources;
    }
  }
  for (auto& [path, entry] : seen) {
    if (entry.sources != trace.sources.size()) continue;
    ++r.replicas_compared;
    if (!entry.differ.empty()) r.mismatches.push_back({path, std::move(entry.differ)});
  }
  std::sort(r.mismatches.begin(), r.mismatches.end(),
            [](const ReplicaMismatch& a, const ReplicaMismatch& b) { return a.path < b.path; });
}

}  // namespace

NumericsReport analyze_numerics(const Trace& trace) {
  NumericsReport r;
  r.outputs = outputs_in_order(trace);
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const Digest& d = r.outputs[i].checksum->digest;
    if (d.finite()) continue;
    if (!r.first_nonfinite) r.first_nonfinite = i;
    ++r.nonfinite;
    r.nan += d.nan;
    r.inf += d.inf;
  }
  compare_replicas(trace, r);
  return r;
}

}  // namespace brickprof
