// The `report --rank-path` view: the critical path across ranks through
// their collectives, which rank holds the run up for how long, and what
// each slow rank as fast as the median one would save (rank_path.h).
#include <cmath>

#include "analysis/analyses/rank_path.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxRuns = 20;

RankPathReport compute(const Trace& t, const ViewSettings&) {
  return rank_critical_path(t, analyze_collectives(t));
}

void json(const Trace&, const RankPathReport& r, JsonWriter& w) {
  w.begin_object();
  write_ranks_json(w, r.ranks);
  w.field("start_ns", r.start_ns).field("measured_end_ns", r.measured_end_ns);
  w.field("modelled_end_ns", r.modelled_end_ns).field("collectives", r.collectives);
  w.key("shares").begin_array();
  for (const RankPathShare& s : r.shares)
    w.begin_object()
        .field("rank", s.rank)
        .field("work_ns", s.work_ns)
        .field("on_path_ns", s.on_path_ns)
        .end_object();
  w.end_array();
  w.key("what_if").begin_array();
  for (const RankWhatIf& x : r.what_ifs)
    w.begin_object()
        .field("rank", x.rank)
        .field("scale", x.scale)
        .field("saving_ns", x.saving_ns)
        .end_object();
  w.end_array();
  w.key("path").begin_array();
  for (const RankPathStep& s : r.path) {
    w.newline().begin_object().field("rank", s.rank).field("transfer", s.transfer);
    if (s.transfer) w.field("instance", s.instance);
    w.field("start_ns", s.start_ns).field("end_ns", s.end_ns).end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace&, const RankPathReport& r, std::ostream& out) {
  if (r.path.empty()) {
    out << "Critical path across ranks: nothing recorded\n";
    return;
  }
  const int64_t span = r.measured_end_ns - r.start_ns;
  out << "Critical path across ranks: " << format_duration(span) << " from the first rank's start "
      << "to the last rank's end, through " << r.collectives << " blocking collective calls";
  const int64_t modelled = r.modelled_end_ns - r.start_ns;
  if (span > 0 && std::abs(static_cast<double>(modelled - span)) > 0.01 * static_cast<double>(span))
    out << " (the chain model gives " << format_duration(modelled) << ")";
  out << '\n';
  out << "  " << pad_right("rank", 16) << pad_left("own work", 12) << pad_left("on the path", 20)
      << '\n';
  for (const RankPathShare& s : r.shares)
    out << "  " << pad_right(clip(printable(r.ranks.label(s.rank)), 16), 16)
        << pad_left(format_duration(s.work_ns), 12)
        << pad_left(format_duration(s.on_path_ns) + " " +
                        format_share(static_cast<double>(s.on_path_ns), static_cast<double>(span)),
                    20)
        << '\n';
  if (r.what_ifs.empty()) {
    out << "  what-if: no rank does more own work than the median rank\n";
  } else {
    for (const RankWhatIf& x : r.what_ifs)
      out << "  what-if: " << printable(r.ranks.label(x.rank)) << " as fast as the median rank (x"
          << format_fixed(x.scale, 2) << " own work) saves " << format_duration(x.saving_ns) << " ("
          << format_share(static_cast<double>(x.saving_ns), static_cast<double>(span)) << ")\n";
  }
  // The path as runs on one rank: where it stays and where it jumps.
  out << "  path (runs on one rank, in time order):\n";
  size_t runs = 0;
  for (size_t i = 0; i < r.path.size();) {
    size_t j = i;
    int64_t own = 0, transfer = 0;
    while (j < r.path.size() && r.path[j].rank == r.path[i].rank) {
      (r.path[j].transfer ? transfer : own) += r.path[j].end_ns - r.path[j].start_ns;
      ++j;
    }
    if (runs++ < kMaxRuns)
      out << "    " << pad_right(clip(printable(r.ranks.label(r.path[i].rank)), 16), 17)
          << format_duration(r.path[i].start_ns - r.start_ns) << " .. "
          << format_duration(r.path[j - 1].end_ns - r.start_ns) << ": own work "
          << format_duration(own) << ", in collectives " << format_duration(transfer) << '\n';
    i = j;
  }
  if (runs > kMaxRuns)
    out << "    ... " << runs - kMaxRuns << " more runs (--json lists the path)\n";
}

}  // namespace

extern constinit const View kRankPathView = make_view<compute, text, json>(
    "rank-path",
    "Critical path across ranks through their collectives: each rank's time on it, and what "
    "each rank slower than the median would save at the median's speed",
    false);

}  // namespace brickprof
