// The `report --collectives` view: collective operations matched across
// ranks, their arrival skew, the rank that arrived last and the time the
// others waited for it (collectives.h).
#include <algorithm>

#include "analysis/analyses/collectives.h"
#include "analysis/views/views.h"
#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxInstances = 15;

CollectiveReport compute(const Trace& t, const ViewSettings&) { return analyze_collectives(t); }

std::string comm_name(const Trace& t, uint32_t comm) {
  return comm < t.communicators.size() ? t.communicators[comm].name : "?";
}

void json(const Trace& t, const CollectiveReport& r, JsonWriter& w) {
  w.begin_object();
  write_ranks_json(w, r.ranks);
  w.field("instances_count", r.instances.size()).field("incomplete", r.incomplete);
  write_collective_ops_json(w, r.ops);
  w.key("per_rank").begin_array();
  for (const RankWaits& p : r.per_rank)
    w.newline()
        .begin_object()
        .field("rank", p.rank)
        .field("calls", p.calls)
        .field("call_ns", p.call_ns)
        .field("wait_ns", p.wait_ns)
        .field("last_arrivals", p.last_arrivals)
        .end_object();
  w.end_array();
  w.key("instances").begin_array();
  for (const CollectiveInstance& inst : r.instances) {
    w.newline().begin_object();
    w.field("op", to_string(inst.op)).field("comm", comm_name(t, inst.comm));
    w.key("comm_key").hex(inst.comm < t.communicators.size() ? t.communicators[inst.comm].key : 0);
    write_instance_figures_json(w, inst);
    w.key("calls").begin_array();
    for (uint32_t j = 0; j < inst.call_count; ++j) {
      const CollectiveCall& c = r.calls[inst.first_call + j];
      w.begin_object()
          .field("rank", c.rank)
          .field("node", t.file_id(c.node))
          .field("arrival_ns", c.arrival_ns)
          .field("end_ns", c.end_ns)
          .field("wait_ns", c.wait_ns)
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object().newline();
}

void text(const Trace& t, const CollectiveReport& r, std::ostream& out) {
  if (r.instances.empty()) {
    out << "Collectives: no MPI collective calls in the trace\n";
    return;
  }
  out << "Collectives: " << r.instances.size() << " instances over " << r.ranks.ranks.size()
      << (r.ranks.ranks.size() == 1 ? " rank" : " ranks");
  if (r.incomplete)
    out << "; " << r.incomplete
        << " incomplete (fewer ranks in the trace than in the communicator)";
  out << '\n';
  out << "  " << pad_right("op", 22) << pad_left("count", 7) << pad_left("bytes/rank", 12)
      << pad_left("skew total", 12) << pad_left("skew max", 11) << pad_left("waited", 11) << '\n';
  for (const CollectiveOpTotals& op : r.ops) {
    const uint64_t each = op.instances ? op.bytes / op.instances : 0;
    out << "  " << pad_right(to_string(op.op), 22) << pad_left(std::to_string(op.instances), 7)
        << pad_left(format_bytes(each), 12) << pad_left(format_duration(op.skew_ns), 12)
        << pad_left(format_duration(op.max_skew_ns), 11)
        << pad_left(format_duration(op.wait_ns), 11) << '\n';
  }
  out << "  " << pad_right("rank", 22) << pad_left("calls", 7) << pad_left("in calls", 12)
      << pad_left("waiting", 12) << pad_left("last in", 11) << '\n';
  for (const RankWaits& p : r.per_rank)
    out << "  " << pad_right(clip(printable(r.ranks.label(p.rank)), 22), 22)
        << pad_left(std::to_string(p.calls), 7) << pad_left(format_duration(p.call_ns), 12)
        << pad_left(format_duration(p.wait_ns), 12) << pad_left(std::to_string(p.last_arrivals), 11)
        << '\n';
  // The instances with the most skew: where ranks arrived furthest apart.
  std::vector<uint32_t> order(r.instances.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const size_t shown = std::min(kMaxInstances, order.size());
  std::partial_sort(
      order.begin(), order.begin() + static_cast<long>(shown), order.end(),
      [&](uint32_t a, uint32_t b) { return r.instances[a].skew_ns() > r.instances[b].skew_ns(); });
  out << "  Largest arrival skew (last to arrive: the straggler; waits: time inside the call "
         "waiting for it):\n";
  for (size_t i = 0; i < shown; ++i) {
    const CollectiveInstance& inst = r.instances[order[i]];
    out << "    " << pad_right(to_string(inst.op), 14)
        << pad_right(clip(printable(comm_name(t, inst.comm)), 16), 17) << "#"
        << pad_right(std::to_string(inst.seq), 7) << "skew "
        << pad_left(format_duration(inst.skew_ns()), 9)
        << "  last: " << pad_right(clip(printable(r.ranks.label(inst.straggler)), 12), 13)
        << "waits:";
    for (uint32_t j = 0; j < inst.call_count && j < 4; ++j) {
      const CollectiveCall& c = r.calls[inst.first_call + j];
      out << ' ' << printable(r.ranks.label(c.rank)) << ' ' << format_duration(c.wait_ns);
    }
    if (inst.call_count > 4) out << " ...";
    out << '\n';
  }
  if (r.instances.size() > shown)
    out << "    ... " << r.instances.size() - shown << " more (--json lists all)\n";
}

}  // namespace

extern constinit const View kCollectivesView = make_view<compute, text, json>(
    "collectives",
    "MPI collectives matched across ranks: arrival skew, the last rank to arrive (straggler), "
    "each rank's wait; per op and per rank (a merged trace of the ranks)",
    false);

}  // namespace brickprof
