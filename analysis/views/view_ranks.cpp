// The `report --ranks` view: each rank's time split into compute, waiting
// for other ranks, communication, memory and idle, with their shares of the
// rank's span, and communication overlapped with compute (rank_breakdown.h).
#include "analysis/analyses/rank_breakdown.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

RankBreakdownReport compute(const Trace& t, const ViewSettings&) {
  const RankWork work = classify_rank_work(t);
  return rank_breakdown(t, work, analyze_collectives(t));
}

void json(const Trace&, const RankBreakdownReport& r, JsonWriter& w) {
  w.begin_object();
  write_ranks_json(w, r.ranks);
  w.key("rows").begin_array();
  for (const RankBreakdown& b : r.rows) {
    w.newline().begin_object();
    w.field("rank", b.rank).field("timeline", b.gpu ? "gpu" : "cpu");
    w.field("start_ns", b.start_ns).field("end_ns", b.end_ns).field("span_ns", b.span_ns());
    w.field("compute_start_ns", b.compute_start_ns).field("compute_end_ns", b.compute_end_ns);
    w.field("compute_ns", b.compute_ns).field("waiting_ns", b.waiting_ns);
    w.field("communication_ns", b.communication_ns).field("memory_ns", b.memory_ns);
    w.field("idle_ns", b.idle_ns).field("overlap_ns", b.overlap_ns);
    w.field("compute_share", b.share(b.compute_ns)).field("waiting_share", b.share(b.waiting_ns));
    w.field("communication_share", b.share(b.communication_ns));
    w.field("memory_share", b.share(b.memory_ns)).field("idle_share", b.share(b.idle_ns));
    w.end_object();
  }
  w.end_array().end_object().newline();
}

std::string cell(const RankBreakdown& b, int64_t ns) {
  return format_duration(ns) + " " +
         format_share(static_cast<double>(ns), static_cast<double>(b.span_ns()));
}

void text(const Trace&, const RankBreakdownReport& r, std::ostream& out) {
  if (r.rows.empty()) {
    out << "Ranks: no work recorded\n";
    return;
  }
  out << "Ranks: each rank's span (first to last work item) split into compute, waiting for "
         "other ranks inside collectives, the rest of communication, memory operations and idle\n";
  out << "  " << pad_right("rank", 14) << pad_right("on", 4) << pad_left("span", 10);
  for (const char* column : {"compute", "waiting", "communication", "memory", "idle", "overlap"})
    out << pad_left(column, 17);
  out << '\n';
  for (const RankBreakdown& b : r.rows) {
    out << "  " << pad_right(clip(printable(r.ranks.label(b.rank)), 14), 14)
        << pad_right(b.gpu ? "gpu" : "cpu", 4) << pad_left(format_duration(b.span_ns()), 10)
        << pad_left(cell(b, b.compute_ns), 17) << pad_left(cell(b, b.waiting_ns), 17)
        << pad_left(cell(b, b.communication_ns), 17) << pad_left(cell(b, b.memory_ns), 17)
        << pad_left(cell(b, b.idle_ns), 17) << pad_left(format_duration(b.overlap_ns), 17) << '\n';
  }
  out << "  (on: the timeline measured, the rank's GPUs when it has GPU work, else its CPU; "
         "overlap: communication while computing)\n";
}

}  // namespace

extern constinit const View kRanksView = make_view<compute, text, json>(
    "ranks",
    "Per rank: compute, waiting for other ranks, communication, memory and idle time and their "
    "shares of the rank's span; communication overlapped with compute",
    false);

}  // namespace brickprof
