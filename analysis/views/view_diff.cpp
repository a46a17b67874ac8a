// The `brickprof diff` renderers: the changes as text for people (what
// moved beyond the limits, changed code, gone and new), every entry as JSON.
#include <cmath>
#include <cstdlib>

#include "analysis/analyses/trace_diff.h"
#include "analysis/model/format.h"
#include "analysis/model/hash_text.h"
#include "analysis/model/printable.h"

namespace brickprof {
namespace {

}  // namespace

void diff_json(const TraceDiff& d, JsonWriter& w) {
  w.begin_object().field("threshold_pct", d.limits.threshold_pct);
  w.field("min_time_ns", d.limits.min_time_ns);
  w.field("regressions", static_cast<uint64_t>(d.regressions));
  w.field("code_changes", static_cast<uint64_t>(d.code_changes));
  w.field("below_floor", static_cast<uint64_t>(d.below_floor));
  w.key("entries").begin_array();
  for (const DiffEntry& e : d.entries) {
    w.newline().begin_object();
    w.field("kind", e.kind == DiffEntry::Kind::kBrick ? "brick" : "kernel").field("name", e.name);
    if (e.kind == DiffEntry::Kind::kKernel) {
      w.key("ptx_hash").hex(e.ptx_hash);
      w.key("base_ptx_hash").hex(e.base_ptx_hash);
    }
    w.field("base_count", e.base_count).field("new_count", e.new_count);
    w.field("base_avg_ns", e.base_avg_ns).field("new_avg_ns", e.new_avg_ns);
    w.field("change_pct", e.change_pct()).field("change_ns", e.change_ns());
    w.field("code_changed", e.code_changed).field("below_floor", e.below_floor);
    w.field("regression", e.regression).end_object();
  }
  w.end_array().end_object().newline();
}

void diff_text(const TraceDiff& d, std::ostream& out) {
  const std::string pct = format_fixed(d.limits.threshold_pct, 1) + "%";
  const std::string floor = format_duration(d.limits.min_time_ns);
  out << "Diff (threshold " << pct << ", min time " << floor << "): " << d.regressions
      << " regression(s), " << d.code_changes
      << " kernel(s) with the same name but different code\n";
  size_t shown = 0;
  for (const DiffEntry& e : d.entries) {
    bool missing = !e.base_count || !e.new_count;
    if (!e.regression && !e.code_changed && !missing &&
        (e.below_floor || std::fabs(e.change_pct()) < d.limits.threshold_pct))
      continue;  // unchanged within the limits
    ++shown;
    out << (e.regression ? "REGRESSION " : "           ")
        << (e.kind == DiffEntry::Kind::kBrick ? "brick  " : "kernel ") << printable(e.name);
    if (e.kind == DiffEntry::Kind::kKernel) {
      out << " [" << hash_text(e.base_ptx_hash);
      if (e.ptx_hash != e.base_ptx_hash) out << " -> " << hash_text(e.ptx_hash);
      out << ']';
    }
    if (!e.base_count)
      out << ": new (avg " << format_duration(e.new_avg_ns) << ")";
    else if (!e.new_count)
      out << ": gone (was avg " << format_duration(e.base_avg_ns) << ")";
    else
      out << ": avg " << format_duration(e.base_avg_ns) << " -> " << format_duration(e.new_avg_ns)
          << " (" << (e.change_pct() >= 0 ? "+" : "") << format_fixed(e.change_pct(), 1) << "%, "
          << (e.change_ns() >= 0 ? "+" : "") << format_duration(e.change_ns()) << " total)";
    if (e.code_changed) out << "  same name, different code";
    out << '\n';
  }
  if (d.below_floor)
    out << d.below_floor << " change(s) of " << pct << " or more not shown: " << floor
        << " or less in total (--min-time)\n";
  else if (shown == 0)
    out << "No brick or kernel changed by " << pct << " or more.\n";
}

}  // namespace brickprof
