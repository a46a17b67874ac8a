// Trace comparison (see trace_diff.h).
#include "analysis/analyses/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "trace/model/format.h"

namespace brickprof {
namespace {

// The calls of one brick, or of one kernel version.
struct Calls {
  uint64_t count = 0;
  int64_t total = 0;
  std::vector<int64_t> durations;
  void add(int64_t d) {
    ++count;
    total += d;
    durations.push_back(d);
  }
  void add(const Calls& o) {
    count += o.count;
    total += o.total;
    durations.insert(durations.end(), o.durations.begin(), o.durations.end());
  }
};

// Bricks by name. The names view the trace's string table.
std::map<std::string_view, Calls> brick_calls(const Trace& t) {
  std::map<StringId, Calls> by_id;  // one string comparison per name, not per node
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kBrick) by_id[n.name].add(n.duration_ns());
  std::map<std::string_view, Calls> out;
  for (auto& [id, calls] : by_id) out[t.strings.view(id)].add(calls);
  return out;
}

// Per kernel name, per PTX hash: its launches' GPU times.
using KernelVersions = std::map<std::string_view, std::map<uint64_t, Calls>>;

KernelVersions kernel_versions(const Trace& t) {
  std::map<std::pair<StringId, uint64_t>, Calls> by_id;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kKernel) continue;
    const GpuDetail* d = t.detail(n);
    by_id[{n.name, d ? d->ptx_hash : 0}].add(n.duration_ns());
  }
  KernelVersions out;
  for (auto& [key, calls] : by_id) out[t.strings.view(key.first)][key.second].add(calls);
  return out;
}

// The median (the mean of the middle two for an even count), so the
// median times the calls is the typical time even for two calls.
int64_t median_of(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2) return *mid;
  const int64_t below = *std::max_element(values.begin(), mid);
  return below + (*mid - below) / 2;
}

// The calls an entry is judged by: its fastest third (at least five, or all
// when fewer). Waiting for the CPU (a preemption, a neighbour on the core,
// memory taken by another process) only ever adds time to a call, so a
// brick's own cost shows in its fastest calls, while a slower brick moves
// them all; the minimum is the most robust estimator of a timing under
// such noise (Chen & Revels, "Robust benchmarking in noisy environments",
// 2016), and a third keeps enough calls to judge their spread. On a 2-core
// VM at load 23, 40% of a run's calls of a brick took 5 to 10 times its own
// time; judged on all calls, one run in four with a brick doubled passed.
std::vector<int64_t> fastest_calls(std::vector<int64_t> durations) {
  const size_t n = durations.size();
  const size_t keep = std::min(n, std::max<size_t>((n + 2) / 3, 5));
  std::nth_element(durations.begin(), durations.begin() + static_cast<std::ptrdiff_t>(keep - 1),
                   durations.end());
  durations.resize(keep);
  return durations;
}

// An entry and the durations it is judged by.
struct Compared {
  DiffEntry entry;
  std::vector<int64_t> base, next;
};

void add_entry(DiffEntry::Kind kind, std::string_view name, const Calls* base,
               const Calls* next, std::vector<Compared>& out, uint64_t base_hash = 0,
               uint64_t new_hash = 0) {
  Compared c;
  DiffEntry& e = c.entry;
  e.kind = kind;
  e.name = std::string(name);
  e.base_ptx_hash = base_hash;
  e.ptx_hash = new_hash;
  if (base && base->count) {
    e.base_count = base->count;
    e.base_total_ns = base->total;
    e.base_avg_ns = base->total / static_cast<int64_t>(base->count);
    e.base_median_ns = median_of(base->durations);
    c.base = base->durations;
  }
  if (next && next->count) {
    e.new_count = next->count;
    e.new_total_ns = next->total;
    e.new_avg_ns = next->total / static_cast<int64_t>(next->count);
    e.new_median_ns = median_of(next->durations);
    c.next = next->durations;
  }
  out.push_back(std::move(c));
}

// The hash that stands for a set of versions: the most launched one.
uint64_t main_hash(const std::map<uint64_t, Calls>& versions) {
  uint64_t best = 0, launches = 0;
  for (const auto& [hash, calls] : versions)
    if (calls.count > launches) best = hash, launches = calls.count;
  return best;
}

// Appends the entries of one kernel name. Versions of one name whose hash
// has no partner on the other side are compared with each other (it is the
// same job, recompiled) and flagged code_changed when both sides know their
// hashes; hash 0 means "not recorded" and never flags.
void diff_kernel(std::string_view name, const std::map<uint64_t, Calls>& base,
                 const std::map<uint64_t, Calls>& next, std::vector<Compared>& out) {
  std::map<uint64_t, Calls> base_only, next_only;
  for (const auto& [hash, calls] : base) {
    auto it = next.find(hash);
    if (it == next.end())
      base_only.emplace(hash, calls);
    else
      add_entry(DiffEntry::Kind::kKernel, name, &calls, &it->second, out, hash, hash);
  }
  for (const auto& [hash, calls] : next)
    if (!base.count(hash)) next_only.emplace(hash, calls);
  if (!base_only.empty() && !next_only.empty()) {
    Calls b, n;
    for (const auto& [hash, calls] : base_only) b.add(calls);
    for (const auto& [hash, calls] : next_only) n.add(calls);
    add_entry(DiffEntry::Kind::kKernel, name, &b, &n, out, main_hash(base_only),
              main_hash(next_only));
    out.back().entry.code_changed = !base_only.count(0) && !next_only.count(0);
    return;
  }
  for (const auto& [hash, calls] : base_only)  // gone
    add_entry(DiffEntry::Kind::kKernel, name, &calls, nullptr, out, hash, hash);
  for (const auto& [hash, calls] : next_only)  // new
    add_entry(DiffEntry::Kind::kKernel, name, nullptr, &calls, out, hash, hash);
}

// The time-weighted median of the entries' log ratios, with one entry left
// out at a time: the move of "the others". Sorted once, each query a binary
// search, so a trace with 10^6 kernel names costs O(E log E).
class CommonMove {
 public:
  static constexpr size_t kMinOthers = 3;

  void add(size_t entry, double log_ratio, double weight) {
    if (weight > 0) items_.push_back({log_ratio, weight, entry});
  }
  void finish() {
    std::sort(items_.begin(), items_.end(),
              [](const Item& a, const Item& b) { return a.log_ratio < b.log_ratio; });
    cumulative_.resize(items_.size());
    double sum = 0;
    for (size_t i = 0; i < items_.size(); ++i) {
      sum += items_[i].weight;
      cumulative_[i] = sum;
      position_[items_[i].entry] = i;
    }
  }
  // The move of all entries (NEW / BASE); 1 when there are too few for any
  // entry to be judged beyond the others'.
  double all() const { return items_.size() > kMinOthers ? without(SIZE_MAX) : 1; }
  // The move of all entries but `entry`; 1 when the others are fewer than
  // three or hold less than a fifth of the time: too little to tell the
  // machine's move from one brick's.
  double without(size_t entry) const {
    if (items_.empty()) return 1;
    const double total = cumulative_.back();
    auto it = position_.find(entry);
    const size_t left_out = it == position_.end() ? SIZE_MAX : it->second;
    const double own = left_out == SIZE_MAX ? 0 : items_[left_out].weight;
    const size_t others = items_.size() - (left_out == SIZE_MAX ? 0 : 1);
    if (others < kMinOthers || total - own < total / 5 || total - own <= 0) return 1;
    const double half = (total - own) / 2;
    // The first item (other than the one left out) whose cumulative weight,
    // less the left-out one's where it comes after it, reaches half.
    size_t i;
    if (left_out != SIZE_MAX && left_out > 0 && cumulative_[left_out - 1] >= half) {
      i = lower_bound(0, left_out, half);
    } else if (left_out == SIZE_MAX) {
      i = lower_bound(0, items_.size(), half);
    } else {
      i = lower_bound(left_out + 1, items_.size(), half + own);
    }
    return std::exp(items_[std::min(i, items_.size() - 1)].log_ratio);
  }

 private:
  struct Item {
    double log_ratio = 0, weight = 0;
    size_t entry = 0;
  };
  size_t lower_bound(size_t from, size_t to, double value) const {
    auto it = std::lower_bound(cumulative_.begin() + static_cast<std::ptrdiff_t>(from),
                               cumulative_.begin() + static_cast<std::ptrdiff_t>(to), value);
    return static_cast<size_t>(it - cumulative_.begin());
  }
  std::vector<Item> items_;
  std::vector<double> cumulative_;
  std::map<size_t, size_t> position_;  // entry -> index in items_
};

DiffTotals& totals_of(TraceDiff& d, DiffEntry::Kind kind) {
  return kind == DiffEntry::Kind::kBrick ? d.bricks : d.kernels;
}

const char* kind_word(DiffEntry::Kind kind) {
  return kind == DiffEntry::Kind::kBrick ? "brick" : "kernel";
}

constexpr double kWidenByMove = 0.75;

// An entry's typical time: its median call times its calls. A run's
// preempted calls (a call of 4 ms among calls of 50 µs) weigh nothing.
double typical_ns(int64_t median_ns, uint64_t count) {
  return static_cast<double>(median_ns) * static_cast<double>(count);
}

void judge(DiffEntry& e, const DiffLimits& limits, int64_t floor_ns) {
  // A run whose bricks moved together by X moves single bricks unevenly
  // (code that waits on memory and code that computes react differently to
  // a neighbour): on a 2-core VM a brick's fastest calls parted from the
  // others' by up to about 60% of the move, so the limits widen by 3/4 of it.
  const double widen = std::exp(kWidenByMove * std::fabs(std::log(e.common)));
  const double up = (1 + limits.threshold_pct / 100) * widen;
  const double down = (1 - limits.threshold_pct / 100) / widen;
  const double calls_up = 1 + limits.threshold_pct / 100, calls_down = 1 - limits.threshold_pct / 100;
  e.limit_pct = 100 * (up - 1);
  if (!e.base_count) {  // new: its whole time is added
    e.added_ns = e.new_total_ns;
    e.regression = e.added_ns > floor_ns;
    return;
  }
  if (!e.new_count) {  // gone: judged with the run (lost_share)
    e.added_ns = -e.base_total_ns;
    return;
  }
  const double per_call = e.per_call.ratio / e.common;
  const double calls = static_cast<double>(e.new_count) / static_cast<double>(e.base_count);
  e.added_ns = std::llround(typical_ns(e.base_median_ns, e.base_count) * (per_call * calls - 1));
  const bool slower = e.per_call.low / e.common > up;
  const bool faster = e.per_call.high / e.common < down;
  const bool more_calls = calls > calls_up;
  const bool fewer_calls = calls < calls_down;
  e.changed = slower || faster || more_calls || fewer_calls;
  if ((slower || more_calls) && e.added_ns > floor_ns) {
    e.regression = true;
  } else if (e.changed) {
    e.below_floor = std::llabs(e.added_ns) <= floor_ns;
  } else {
    e.within_spread = per_call > up || per_call < down;
  }
}

std::string percent(double share) { return format_fixed(100 * share, 1) + "%"; }

void check_runs(TraceDiff& d) {
  if (d.bricks.entries_gone + d.bricks.entries_both + d.kernels.entries_gone +
          d.kernels.entries_both ==
      0) {
    d.run_problems.push_back("BASE has no bricks or kernels: there is nothing to compare");
    return;
  }
  if (!d.limits.any_program && !d.base_program.empty() && !d.new_program.empty() &&
      d.base_program != d.new_program)
    d.run_problems.push_back("BASE is a run of " + d.base_program + ", NEW of " + d.new_program +
                             ": not the same program (--any-program compares them anyway)");
  for (DiffEntry::Kind kind : {DiffEntry::Kind::kBrick, DiffEntry::Kind::kKernel}) {
    const DiffTotals& t = totals_of(d, kind);
    const std::string word = kind_word(kind);
    const size_t base_entries = t.entries_both + t.entries_gone;
    if (t.base_ns > 0 && t.lost_share > 0.5)
      d.run_problems.push_back("NEW lacks " + std::to_string(t.entries_gone) + " of the " +
                               std::to_string(base_entries) + " " + word + "s of BASE, " +
                               percent(t.lost_share) + " of its " + word +
                               " time: not the same work (another input, a failed run, or "
                               "less recorded)");
    const double moved_pct = 100 * (t.common - 1);
    if (d.limits.total_threshold_pct && t.entries_both > 0 &&
        moved_pct > *d.limits.total_threshold_pct)
      d.run_problems.push_back("the " + word + "s moved together by " +
                               format_fixed(moved_pct, 1) +
                               "% per call, more than --total-threshold " +
                               format_fixed(*d.limits.total_threshold_pct, 1) +
                               "% (every " + word + " slower alike)");
  }
}

}  // namespace

double DiffEntry::relative_pct() const { return both() ? 100 * (per_call.ratio / common - 1) : 0; }
double DiffEntry::relative_low_pct() const { return both() ? 100 * (per_call.low / common - 1) : 0; }
double DiffEntry::relative_high_pct() const {
  return both() ? 100 * (per_call.high / common - 1) : 0;
}

double DiffEntry::change_pct() const {
  if (!both() || base_avg_ns <= 0) return 0;
  return 100.0 * static_cast<double>(new_avg_ns - base_avg_ns) / static_cast<double>(base_avg_ns);
}

int64_t DiffEntry::change_ns() const {
  if (!both()) return 0;
  int64_t total;
  if (__builtin_mul_overflow(new_avg_ns - base_avg_ns, static_cast<int64_t>(new_count), &total))
    return new_avg_ns > base_avg_ns ? INT64_MAX : -INT64_MAX;  // llabs-safe
  return total;
}

double DiffTotals::change_pct() const {
  if (base_ns <= 0) return 0;
  return 100.0 * static_cast<double>(new_ns - base_ns) / static_cast<double>(base_ns);
}

TraceDiff diff_traces(const Trace& base, const Trace& next, const DiffLimits& limits) {
  TraceDiff d;
  d.limits = limits;
  d.base_program = base.process.program;
  d.new_program = next.process.program;
  std::vector<Compared> compared;
  {
    const auto bb = brick_calls(base), nb = brick_calls(next);
    auto b = bb.begin(), n = nb.begin();
    while (b != bb.end() || n != nb.end()) {  // merge walk over the sorted names
      if (n == nb.end() || (b != bb.end() && b->first < n->first)) {
        add_entry(DiffEntry::Kind::kBrick, b->first, &b->second, nullptr, compared), ++b;
      } else if (b == bb.end() || n->first < b->first) {
        add_entry(DiffEntry::Kind::kBrick, n->first, nullptr, &n->second, compared), ++n;
      } else {
        add_entry(DiffEntry::Kind::kBrick, b->first, &b->second, &n->second, compared), ++b, ++n;
      }
    }
  }
  {
    const KernelVersions bk = kernel_versions(base), nk = kernel_versions(next);
    const std::map<uint64_t, Calls> none;
    auto b = bk.begin(), n = nk.begin();
    while (b != bk.end() || n != nk.end()) {
      if (n == nk.end() || (b != bk.end() && b->first < n->first)) {
        diff_kernel(b->first, b->second, none, compared), ++b;
      } else if (b == bk.end() || n->first < b->first) {
        diff_kernel(n->first, none, n->second, compared), ++n;
      } else {
        diff_kernel(b->first, b->second, n->second, compared), ++b, ++n;
      }
    }
  }
  CommonMove moves[2];  // bricks, kernels
  for (size_t i = 0; i < compared.size(); ++i) {
    Compared& c = compared[i];
    DiffEntry& e = c.entry;
    DiffTotals& t = totals_of(d, e.kind);
    t.base_ns += e.base_total_ns, t.new_ns += e.new_total_ns;
    t.base_calls += e.base_count, t.new_calls += e.new_count;
    if (e.both()) {
      ++t.entries_both;
      std::vector<int64_t> base_fast = fastest_calls(std::move(c.base));
      std::vector<int64_t> next_fast = fastest_calls(std::move(c.next));
      e.per_call = estimate_shift(base_fast, next_fast);
      moves[static_cast<int>(e.kind)].add(i, std::log(e.per_call.ratio),
                                          typical_ns(e.base_median_ns, e.base_count));
    } else {
      ++(e.base_count ? t.entries_gone : t.entries_new);
      if (e.base_count) t.lost_share += static_cast<double>(e.base_total_ns);
    }
    c.base = {}, c.next = {};  // judged: the durations are no longer needed
  }
  for (DiffEntry::Kind kind : {DiffEntry::Kind::kBrick, DiffEntry::Kind::kKernel}) {
    DiffTotals& t = totals_of(d, kind);
    moves[static_cast<int>(kind)].finish();
    t.common = moves[static_cast<int>(kind)].all();
    t.lost_share = t.base_ns > 0 ? t.lost_share / static_cast<double>(t.base_ns) : 0;
    t.floor_ns = limits.min_time_ns
                     ? *limits.min_time_ns
                     : std::llround(static_cast<double>(t.base_ns) * limits.min_time_pct / 100);
  }
  for (size_t i = 0; i < compared.size(); ++i) {
    DiffEntry& e = compared[i].entry;
    if (e.both()) e.common = moves[static_cast<int>(e.kind)].without(i);
    judge(e, limits, totals_of(d, e.kind).floor_ns);
    d.regressions += e.regression;
    d.code_changes += e.code_changed;
    d.below_floor += e.below_floor;
    d.within_spread += e.within_spread;
    d.entries.push_back(std::move(e));
  }
  check_runs(d);
  std::stable_sort(d.entries.begin(), d.entries.end(), [](const DiffEntry& a, const DiffEntry& b) {
    if (a.regression != b.regression) return a.regression;
    return std::fabs(a.relative_pct()) > std::fabs(b.relative_pct());
  });
  return d;
}

}  // namespace brickprof
