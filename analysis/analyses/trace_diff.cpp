// Trace comparison (see trace_diff.h).
#include "analysis/analyses/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "analysis/model/stats.h"

namespace brickprof {
namespace {

struct Agg {
  uint64_t count = 0;
  int64_t total = 0;
  int64_t avg() const { return count ? total / static_cast<int64_t>(count) : 0; }
  void add(const Agg& o) {
    count += o.count;
    total += o.total;
  }
};

// Per kernel name, per PTX hash: launches and GPU time. The names view the
// trace's string table, so the trace must outlive the map.
using KernelVersions = std::map<std::string_view, std::map<uint64_t, Agg>>;

KernelVersions kernel_versions(const Trace& t) {
  // Keyed by interned id first: one string comparison per name, not per node.
  std::map<std::pair<StringId, uint64_t>, Agg> by_id;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kKernel) continue;
    const GpuDetail* d = t.detail(n);
    Agg& a = by_id[{n.name, d ? d->ptx_hash : 0}];
    a.count++;
    a.total += n.duration_ns();
  }
  KernelVersions out;
  for (const auto& [key, agg] : by_id) out[t.strings.view(key.first)][key.second].add(agg);
  return out;
}

DiffEntry kernel_entry(std::string_view name) {
  DiffEntry e;
  e.kind = DiffEntry::Kind::kKernel;
  e.name = std::string(name);
  return e;
}

// The hash that stands for a set of versions: the most launched one.
uint64_t main_hash(const std::map<uint64_t, Agg>& versions) {
  uint64_t best = 0, launches = 0;
  for (const auto& [hash, agg] : versions)
    if (agg.count > launches) best = hash, launches = agg.count;
  return best;
}

// Appends the entries of one kernel name (see TraceDiff).
void diff_kernel(std::string_view name, const std::map<uint64_t, Agg>& base,
                 const std::map<uint64_t, Agg>& next, std::vector<DiffEntry>& out) {
  std::map<uint64_t, Agg> base_only, next_only;
  for (const auto& [hash, agg] : base) {
    auto it = next.find(hash);
    if (it == next.end()) {
      base_only.emplace(hash, agg);
      continue;
    }
    DiffEntry e = kernel_entry(name);
    e.ptx_hash = e.base_ptx_hash = hash;
    e.base_count = agg.count, e.base_avg_ns = agg.avg();
    e.new_count = it->second.count, e.new_avg_ns = it->second.avg();
    out.push_back(e);
  }
  for (const auto& [hash, agg] : next)
    if (!base.count(hash)) next_only.emplace(hash, agg);
  if (!base_only.empty() && !next_only.empty()) {
    Agg b, n;
    for (const auto& [hash, agg] : base_only) b.add(agg);
    for (const auto& [hash, agg] : next_only) n.add(agg);
    DiffEntry e = kernel_entry(name);
    e.base_ptx_hash = main_hash(base_only);
    e.ptx_hash = main_hash(next_only);
    e.base_count = b.count, e.base_avg_ns = b.avg();
    e.new_count = n.count, e.new_avg_ns = n.avg();
    e.code_changed = !base_only.count(0) && !next_only.count(0);
    out.push_back(e);
    return;
  }
  for (const auto& [hash, agg] : base_only) {  // gone
    DiffEntry e = kernel_entry(name);
    e.ptx_hash = e.base_ptx_hash = hash;
    e.base_count = agg.count, e.base_avg_ns = agg.avg();
    out.push_back(e);
  }
  for (const auto& [hash, agg] : next_only) {  // new
    DiffEntry e = kernel_entry(name);
    e.ptx_hash = e.base_ptx_hash = hash;
    e.new_count = agg.count, e.new_avg_ns = agg.avg();
    out.push_back(e);
  }
}

}  // namespace

double DiffEntry::change_pct() const {
  if (!base_count || !new_count || base_avg_ns <= 0) return 0;
  return 100.0 * static_cast<double>(new_avg_ns - base_avg_ns) / static_cast<double>(base_avg_ns);
}

int64_t DiffEntry::change_ns() const {
  if (!base_count || !new_count) return 0;
  int64_t total;
  if (__builtin_mul_overflow(new_avg_ns - base_avg_ns, static_cast<int64_t>(new_count), &total))
    return new_avg_ns > base_avg_ns ? INT64_MAX : -INT64_MAX;  // llabs-safe
  return total;
}

TraceDiff diff_traces(const Trace& base, const Trace& next, const DiffLimits& limits) {
  TraceDiff d;
  d.limits = limits;
  TraceStats bs = compute_stats(base), ns = compute_stats(next);
  std::map<std::string, std::pair<const BrickStat*, const BrickStat*>> bricks;
  for (const BrickStat& s : bs.bricks) bricks[s.name].first = &s;
  for (const BrickStat& s : ns.bricks) bricks[s.name].second = &s;
  for (const auto& [name, pair] : bricks) {
    DiffEntry e;
    e.kind = DiffEntry::Kind::kBrick;
    e.name = name;
    if (pair.first) e.base_count = pair.first->count, e.base_avg_ns = pair.first->avg_ns();
    if (pair.second) e.new_count = pair.second->count, e.new_avg_ns = pair.second->avg_ns();
    d.entries.push_back(e);
  }
  const KernelVersions bk = kernel_versions(base), nk = kernel_versions(next);
  const std::map<uint64_t, Agg> none;
  auto b = bk.begin(), n = nk.begin();
  while (b != bk.end() || n != nk.end()) {  // merge walk over the sorted names
    if (n == nk.end() || (b != bk.end() && b->first < n->first)) {
      diff_kernel(b->first, b->second, none, d.entries), ++b;
    } else if (b == bk.end() || n->first < b->first) {
      diff_kernel(n->first, none, n->second, d.entries), ++n;
    } else {
      diff_kernel(b->first, b->second, n->second, d.entries), ++b, ++n;
    }
  }
  for (DiffEntry& e : d.entries) {
    bool beyond_pct = e.change_pct() > limits.threshold_pct;
    bool beyond_time = e.change_ns() > limits.min_time_ns;
    e.regression = beyond_pct && beyond_time;
    // Moves of either sign that the text would list but for the floor.
    e.below_floor = std::fabs(e.change_pct()) >= limits.threshold_pct && e.change_pct() != 0 &&
                    std::llabs(e.change_ns()) <= limits.min_time_ns;
    d.regressions += e.regression;
    d.code_changes += e.code_changed;
    d.below_floor += e.below_floor;
  }
  std::stable_sort(d.entries.begin(), d.entries.end(), [](const DiffEntry& a, const DiffEntry& b) {
    if (a.regression != b.regression) return a.regression;
    return std::fabs(a.change_pct()) > std::fabs(b.change_pct());
  });
  return d;
}

}  // namespace brickprof
