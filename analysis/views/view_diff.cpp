// The `brickprof diff` renderers: for people, how it judged, the totals,
// what changed beyond the limits (changed code, gone and new too), what the
// spread and the floor kept out, and the verdict; every entry as JSON.
#include <cmath>
#include <cstdlib>

#include "analysis/analyses/trace_diff.h"
#include "trace/model/format.h"
#include "trace/model/hash_text.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

std::string signed_pct(double pct) { return (pct >= 0 ? "+" : "") + format_fixed(pct, 1) + "%"; }

std::string signed_duration(int64_t ns) { return (ns >= 0 ? "+" : "-") + format_duration(std::llabs(ns)); }

const char* kind_word(DiffEntry::Kind kind) {
  return kind == DiffEntry::Kind::kBrick ? "brick" : "kernel";
}

// "Bricks: 9.02ms -> 10.61ms (+17.6%), 731 -> 731 calls; per call they moved +1.2% together"
// A common move per call this large is said under the totals.
constexpr double kLargeMove = 50;

void totals_line(const char* what, const char* word, const DiffTotals& t, std::ostream& out) {
  out << what << ": " << format_duration(t.base_ns) << " -> " << format_duration(t.new_ns);
  if (t.base_ns > 0) out << " (" << signed_pct(t.change_pct()) << ")";
  out << ", " << t.base_calls << " -> " << t.new_calls << " calls";
  if (t.common != 1)  // measured: enough entries in both
    out << "; per call they moved " << signed_pct(100 * (t.common - 1)) << " together";
  out << '\n';
  // Judged beyond that move, no entry shows a change that slows all alike.
  if (t.common > 1 + kLargeMove / 100)
    out << "  NOTE: that is a busier machine or a change that slows every " << word
        << " alike; each is judged beyond it (--total-threshold " << format_fixed(kLargeMove, 0)
        << "% fails on it)\n";
}

// The floor as the user set it: "90.2µs (1.0% of BASE's brick time)".
std::string floor_text(const TraceDiff& d, const DiffTotals& t, const char* word) {
  std::string text = format_duration(t.floor_ns);
  if (!d.limits.min_time_ns)
    text += " (" + format_fixed(d.limits.min_time_pct, 1) + "% of BASE's " + word + " time)";
  return text;
}

void entry_line(const DiffEntry& e, double threshold_pct, std::ostream& out) {
  out << (e.regression ? "REGRESSION " : "           ")
      << (e.kind == DiffEntry::Kind::kBrick ? "brick  " : "kernel ") << printable(e.name);
  if (e.kind == DiffEntry::Kind::kKernel) {
    out << " [" << hash_text(e.base_ptx_hash);
    if (e.ptx_hash != e.base_ptx_hash) out << " -> " << hash_text(e.ptx_hash);
    out << ']';
  }
  if (!e.base_count) {
    out << ": new, " << e.new_count << " call" << (e.new_count == 1 ? "" : "s") << ", median "
        << format_duration(e.new_median_ns) << ", " << format_duration(e.new_total_ns)
        << " in all";
  } else if (!e.new_count) {
    out << ": gone (was " << e.base_count << " call" << (e.base_count == 1 ? "" : "s")
        << ", median " << format_duration(e.base_median_ns) << ")";
  } else {
    out << ": median " << format_duration(e.base_median_ns) << " -> "
        << format_duration(e.new_median_ns) << " (" << signed_pct(e.relative_pct());
    if (std::fabs(e.common - 1) >= 0.0005) out << " beyond the others' move";
    out << "; 99%: " << signed_pct(e.relative_low_pct()) << " to "
        << signed_pct(e.relative_high_pct());
    if (e.limit_pct > threshold_pct + 0.05) out << "; limit " << signed_pct(e.limit_pct);
    out << "), ";
    if (e.base_count == e.new_count)
      out << e.new_count << " call" << (e.new_count == 1 ? "" : "s");
    else
      out << "calls " << e.base_count << " -> " << e.new_count;
    out << ", " << signed_duration(e.added_ns);
  }
  if (e.code_changed) out << "  same name, different code";
  out << '\n';
}

}  // namespace

std::string diff_verdict(const TraceDiff& d) {
  if (!d.failed()) {
    const size_t compared = d.bricks.entries_both + d.kernels.entries_both;
    return "PASS: no regression (" + std::to_string(compared) + " brick(s) and kernel(s) compared)";
  }
  std::string line = "FAIL: ";
  for (size_t i = 0; i < d.run_problems.size(); ++i)
    line += (i ? "; " : "") + printable(d.run_problems[i]);
  if (d.regressions) {
    if (!d.run_problems.empty()) line += "; ";
    line += std::to_string(d.regressions) + " regression(s):";
    size_t named = 0;
    for (const DiffEntry& e : d.entries) {
      if (!e.regression) continue;
      if (++named > 3) {
        line += " ...";
        break;
      }
      line += std::string(named > 1 ? ", " : " ") + kind_word(e.kind) + " " + printable(e.name);
    }
  }
  return line;
}

void diff_json(const TraceDiff& d, JsonWriter& w) {
  w.begin_object().field("verdict", d.failed() ? "fail" : "pass");
  w.key("problems").begin_array();
  for (const std::string& p : d.run_problems) w.value(p);
  w.end_array();
  w.field("threshold_pct", d.limits.threshold_pct).field("confidence", 0.99);
  w.key("min_time_pct");
  if (d.limits.min_time_ns)
    w.null();
  else
    w.value(d.limits.min_time_pct);
  // The bricks' floor (the kernels' is in "kernels"), as --min-time was read.
  w.field("min_time_ns", d.bricks.floor_ns);
  w.key("total_threshold_pct");
  if (d.limits.total_threshold_pct)
    w.value(*d.limits.total_threshold_pct);
  else
    w.null();
  w.field("base_program", d.base_program).field("new_program", d.new_program);
  for (const auto& [key, t] : {std::pair{"bricks", &d.bricks}, std::pair{"kernels", &d.kernels}}) {
    w.key(key).begin_object();
    w.field("base_ns", t->base_ns).field("new_ns", t->new_ns);
    w.field("base_calls", t->base_calls).field("new_calls", t->new_calls);
    w.field("in_both", static_cast<uint64_t>(t->entries_both));
    w.field("gone", static_cast<uint64_t>(t->entries_gone));
    w.field("new", static_cast<uint64_t>(t->entries_new));
    w.field("common", t->common).field("floor_ns", t->floor_ns);
    w.field("lost_share", t->lost_share).end_object();
  }
  w.field("regressions", static_cast<uint64_t>(d.regressions));
  w.field("code_changes", static_cast<uint64_t>(d.code_changes));
  w.field("below_floor", static_cast<uint64_t>(d.below_floor));
  w.field("within_spread", static_cast<uint64_t>(d.within_spread));
  w.key("entries").begin_array();
  for (const DiffEntry& e : d.entries) {
    w.newline().begin_object();
    w.field("kind", kind_word(e.kind)).field("name", e.name);
    if (e.kind == DiffEntry::Kind::kKernel) {
      w.key("ptx_hash").hex(e.ptx_hash);
      w.key("base_ptx_hash").hex(e.base_ptx_hash);
    }
    w.field("base_count", e.base_count).field("new_count", e.new_count);
    w.field("base_avg_ns", e.base_avg_ns).field("new_avg_ns", e.new_avg_ns);
    w.field("base_median_ns", e.base_median_ns).field("new_median_ns", e.new_median_ns);
    w.field("base_total_ns", e.base_total_ns).field("new_total_ns", e.new_total_ns);
    w.field("change_pct", e.change_pct()).field("change_ns", e.change_ns());
    w.field("ratio", e.per_call.ratio).field("ratio_low", e.per_call.low);
    w.field("ratio_high", e.per_call.high).field("common", e.common);
    w.field("relative_pct", e.relative_pct()).field("relative_low_pct", e.relative_low_pct());
    w.field("relative_high_pct", e.relative_high_pct()).field("limit_pct", e.limit_pct);
    w.field("added_ns", e.added_ns);
    w.field("code_changed", e.code_changed).field("changed", e.changed);
    w.field("within_spread", e.within_spread);
    w.field("below_floor", e.below_floor).field("regression", e.regression).end_object();
  }
  w.end_array().end_object().newline();
}

void diff_text(const TraceDiff& d, std::ostream& out) {
  const std::string pct = format_fixed(d.limits.threshold_pct, 1) + "%";
  out << "Diff of " << (d.base_program.empty() ? "?" : printable(d.base_program))
      << " (BASE) and " << (d.new_program.empty() ? "?" : printable(d.new_program))
      << " (NEW): " << d.bricks.entries_both
      << " brick(s) and " << d.kernels.entries_both << " kernel(s) in both\n";
  const bool bricks = d.bricks.base_calls || d.bricks.new_calls;
  const bool kernels = d.kernels.base_calls || d.kernels.new_calls;
  if (bricks || !kernels) totals_line("Bricks (CPU time)", "brick", d.bricks, out);
  if (kernels) totals_line("Kernels (GPU time)", "kernel", d.kernels, out);
  out << "Judged per call, beyond the others' common move (and by more where that move is "
         "large), at 99% confidence from the spread of its calls:\n  a regression is "
      << pct << " slower or called " << pct << " more often, and adds more than ";
  if (bricks || !kernels) out << floor_text(d, d.bricks, "brick");
  if (bricks && kernels) out << " for a brick, ";
  if (kernels) out << floor_text(d, d.kernels, "kernel") << (bricks ? " for a kernel" : "");
  out << "\n";
  for (const DiffEntry& e : d.entries) {
    if (e.regression || e.code_changed || !e.both() || (e.changed && !e.below_floor))
      entry_line(e, d.limits.threshold_pct, out);
  }
  if (d.code_changes)
    out << d.code_changes << " kernel(s) with the same name but different code\n";
  if (d.within_spread)
    out << d.within_spread << " change(s) of " << pct
        << " or more not counted: within the spread of their calls\n";
  if (d.below_floor) {
    out << d.below_floor << " change(s) of " << pct << " or more not counted: they add "
        << format_duration(d.bricks.floor_ns);
    if (kernels && bricks) out << " (kernels " << format_duration(d.kernels.floor_ns) << ")";
    out << " or less (--min-time)\n";
  }
  out << diff_verdict(d) << '\n';
}

}  // namespace brickprof
