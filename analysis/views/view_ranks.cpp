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
  RankBreakdownReport r = rank_breakdown(t, work, analyze_collectives(t));
  r.memory = memory_per_rank(t, r.ranks);
  return r;
}

void memory_json(const Trace& t, const RankBreakdownReport& r, JsonWriter& w) {
  w.key("memory").begin_array();
  for (const RankMemory& m : r.memory) {
    w.newline().begin_object();
    w.field("rank", m.rank).field("account", to_string(m.key.account));
    w.field("label", account_label(t, m.key)).field("peak_bytes", m.peak);
    w.field("peak_ns", m.peak_ns);
    w.key("memory_bytes");
    if (m.device_bytes) w.value(m.device_bytes); else w.null();
    w.key("headroom_bytes");
    if (m.device_bytes) w.value(m.headroom()); else w.null();
    w.end_object();
  }
  w.end_array();
}

void memory_text(const Trace& t, const RankBreakdownReport& r, std::ostream& out) {
  if (r.memory.empty()) return;
  out << "Memory per rank (peak live bytes per account; headroom: the GPU's memory less the "
         "peak of what the driver handed out):\n";
  for (const RankMemory& m : r.memory) {
    // A merged trace's labels name the rank already ("rank 1: GPU 1 device memory").
    out << "  " << (t.sources.size() > 1 ? "" : printable(r.ranks.label(m.rank)) + ": ")
        << printable(account_label(t, m.key)) << ": peak " << format_bytes(m.peak);
    if (m.device_bytes)
      out << ", headroom " << format_bytes(m.headroom()) << " of " << format_bytes(m.device_bytes);
    out << '\n';
  }
}

void json(const Trace& t, const RankBreakdownReport& r, JsonWriter& w) {
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
  w.end_array();
  memory_json(t, r, w);
  w.end_object().newline();
}

std::string cell(const RankBreakdown& b, int64_t ns) {
  return format_duration(ns) + " " +
         format_share(static_cast<double>(ns), static_cast<double>(b.span_ns()));
}

void text(const Trace& t, const RankBreakdownReport& r, std::ostream& out) {
  if (r.rows.empty()) {
    out << "Ranks: no work recorded\n";
    memory_text(t, r, out);
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
  memory_text(t, r, out);
}

}  // namespace

extern constinit const View kRanksView = make_view<compute, text, json>(
    "ranks",
    "Per rank: compute, waiting for other ranks, communication, memory and idle time and their "
    "shares of the rank's span; communication overlapped with compute; each rank's memory peak "
    "and headroom",
    false);

}  // namespace brickprof
