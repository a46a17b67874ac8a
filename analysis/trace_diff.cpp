// Trace comparison (see trace_diff.h).
#include "analysis/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/json_writer.h"
#include "analysis/report_format.h"
#include "analysis/stats.h"

namespace brickprof {
namespace {

struct Agg {
  uint64_t count = 0;
  int64_t total = 0;
  int64_t avg() const { return count ? total / static_cast<int64_t>(count) : 0; }
};

// Per kernel name: times over all its code versions, and the PTX hashes seen.
struct KernelAgg {
  Agg agg;
  std::set<uint64_t> hashes;
};

std::map<std::string, KernelAgg> kernels(const Trace& t) {
  std::map<std::string, KernelAgg> out;
  for (const Node& n : t.nodes) {
    if (n.kind != NodeKind::kKernel) continue;
    const GpuDetail* d = t.detail(n);
    KernelAgg& k = out[std::string(t.name(n))];
    k.agg.count++;
    k.agg.total += n.duration_ns();
    k.hashes.insert(d ? d->ptx_hash : 0);
  }
  return out;
}

}  // namespace

double DiffEntry::change_pct() const {
  if (!base_count || !new_count || base_avg_ns <= 0) return 0;
  return 100.0 * static_cast<double>(new_avg_ns - base_avg_ns) / static_cast<double>(base_avg_ns);
}

TraceDiff diff_traces(const Trace& base, const Trace& next, double threshold_pct) {
  TraceDiff d;
  d.threshold_pct = threshold_pct;
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
  // Kernels match by name and PTX hash; the same name with other code is
  // still compared (it is the same job) but flagged.
  auto bk = kernels(base), nk = kernels(next);
  std::map<std::string, std::pair<const KernelAgg*, const KernelAgg*>> all;
  for (const auto& [name, k] : bk) all[name].first = &k;
  for (const auto& [name, k] : nk) all[name].second = &k;
  for (const auto& [name, pair] : all) {
    DiffEntry e;
    e.kind = DiffEntry::Kind::kKernel;
    e.name = name;
    if (pair.first) e.base_count = pair.first->agg.count, e.base_avg_ns = pair.first->agg.avg();
    if (pair.second) e.new_count = pair.second->agg.count, e.new_avg_ns = pair.second->agg.avg();
    e.ptx_hash = *(pair.second ? pair.second : pair.first)->hashes.begin();
    e.code_changed = pair.first && pair.second && pair.first->hashes != pair.second->hashes;
    d.entries.push_back(e);
  }
  for (DiffEntry& e : d.entries) {
    e.regression = e.change_pct() > threshold_pct;
    d.regressions += e.regression;
    d.code_changes += e.code_changed;
  }
  std::stable_sort(d.entries.begin(), d.entries.end(), [](const DiffEntry& a, const DiffEntry& b) {
    if (a.regression != b.regression) return a.regression;
    return std::fabs(a.change_pct()) > std::fabs(b.change_pct());
  });
  return d;
}

void render_diff(const TraceDiff& d, std::ostream& out, bool json) {
  if (json) {
    JsonWriter w(out);
    w.begin_object().field("threshold_pct", d.threshold_pct);
    w.field("regressions", static_cast<uint64_t>(d.regressions));
    w.field("code_changes", static_cast<uint64_t>(d.code_changes));
    w.key("entries").begin_array();
    for (const DiffEntry& e : d.entries) {
      w.newline().begin_object();
      w.field("kind", e.kind == DiffEntry::Kind::kBrick ? "brick" : "kernel").field("name", e.name);
      if (e.kind == DiffEntry::Kind::kKernel) w.key("ptx_hash").hex(e.ptx_hash);
      w.field("base_count", e.base_count).field("new_count", e.new_count);
      w.field("base_avg_ns", e.base_avg_ns).field("new_avg_ns", e.new_avg_ns);
      w.field("change_pct", e.change_pct()).field("code_changed", e.code_changed);
      w.field("regression", e.regression).end_object();
    }
    w.end_array().end_object().newline();
    return;
  }
  out << "Diff (threshold " << format_fixed(d.threshold_pct, 1) << "%): " << d.regressions
      << " regression(s), " << d.code_changes << " kernel(s) with the same name but different code\n";
  for (const DiffEntry& e : d.entries) {
    bool missing = !e.base_count || !e.new_count;
    if (!e.regression && !e.code_changed && !missing && std::fabs(e.change_pct()) < d.threshold_pct)
      continue;  // unchanged within the threshold
    out << (e.regression ? "REGRESSION " : "           ")
        << (e.kind == DiffEntry::Kind::kBrick ? "brick  " : "kernel ") << e.name;
    if (e.kind == DiffEntry::Kind::kKernel) {
      char h[24];
      std::snprintf(h, sizeof h, " [0x%016llx]", static_cast<unsigned long long>(e.ptx_hash));
      out << h;
    }
    if (!e.base_count) out << ": new (avg " << format_us(e.new_avg_ns) << ")";
    else if (!e.new_count) out << ": gone (was avg " << format_us(e.base_avg_ns) << ")";
    else
      out << ": avg " << format_us(e.base_avg_ns) << " -> " << format_us(e.new_avg_ns) << " ("
          << (e.change_pct() >= 0 ? "+" : "") << format_fixed(e.change_pct(), 1) << "%)";
    if (e.code_changed) out << "  same name, different code";
    out << '\n';
  }
}

}  // namespace brickprof
