// Writes the job summary (see job_summary_json.h).
#include <algorithm>

#include "trace/json/job_summary_json.h"
#include "trace/json/json_writer.h"

namespace brickprof {
namespace {

void write_stats(JsonWriter& w, std::string_view key, const std::vector<TimeStat>& stats,
                 bool with_category) {
  w.key(key).begin_array();
  for (const TimeStat& s : stats) {
    w.newline().begin_object().field("name", s.name);
    if (with_category) w.field("category", to_string(s.category));
    w.field("count", s.count)
        .field("total_ns", s.total_ns)
        .field("min_ns", s.min_ns)
        .field("max_ns", s.max_ns)
        .end_object();
  }
  w.end_array();
}

void write_rank(JsonWriter& w, const RankSummary& r) {
  w.newline().begin_object();
  w.field("rank", r.rank).field("pid", r.pid).field("host", r.host);
  w.field("clock_aligned", r.clock_aligned);
  w.field("first_ns", r.first_ns).field("last_ns", r.last_ns);
  w.field("scopes", r.scopes).field("open_scopes", r.open_scopes);
  w.field("dropped_events", r.dropped_events);
  w.field("summarize_ns", r.summarize_ns).field("wire_bytes", r.wire_bytes);
  if (!r.note.empty()) w.field("note", r.note);
  write_stats(w, "bricks", r.bricks, true);
  w.field("bricks_left_out", r.bricks_left_out);
  write_stats(w, "kernels", r.kernels, false);
  w.field("kernels_left_out", r.kernels_left_out);
  w.key("collectives").begin_array();
  for (const CollectiveArrival& c : r.collectives) {
    w.newline().begin_object().key("comm").hex(c.comm_key);
    w.field("seq", c.seq).field("op", to_string(c.op)).field("root", c.root);
    w.field("comm_rank", c.comm_rank).field("comm_size", c.comm_size).field("bytes", c.bytes);
    w.field("arrival_ns", c.arrival_ns).field("end_ns", c.end_ns).end_object();
  }
  w.end_array();
  w.field("collectives_left_out", r.collectives_left_out);
  w.key("memory_peaks").begin_array();
  for (const MemoryPeak& m : r.memory_peaks)
    w.newline().begin_object().field("account", m.account).field("peak_bytes", m.peak_bytes).end_object();
  w.end_array();
  w.field("memory_peaks_left_out", r.memory_peaks_left_out);
  w.end_object();
}

}  // namespace

void write_job_summary_json(const JobSummary& job, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object().field("schema", kJobSchema);
  w.key("job").begin_object();
  w.field("world_size", job.world_size).field("program", job.program);
  w.field("launcher", job.launcher).field("job", job.job).end_object();
  w.key("reduction").begin_object();
  w.field("ranks", static_cast<uint64_t>(job.ranks.size()));
  w.field("gather_sizes_ns", job.gather_sizes_ns);
  w.field("gather_records_ns", job.gather_records_ns).field("unpack_ns", job.unpack_ns);
  w.field("gathered_bytes", job.gathered_bytes).end_object();
  w.key("notes").begin_array();
  for (const std::string& n : job.notes) w.value(n);
  w.end_array();
  // The reduction's result first (what a script wants), then each rank's.
  write_stats(w, "bricks", combine_stats(job, false), true);
  write_stats(w, "kernels", combine_stats(job, true), false);
  w.key("ranks").begin_array();
  for (const RankSummary& r : job.ranks) write_rank(w, r);
  w.end_array().end_object();
  w.flush();
  out << '\n';
}

bool looks_like_job_summary(std::string_view head) {
  const size_t at = head.find("\"schema\"");
  if (at == std::string_view::npos || at > 64) return false;
  std::string_view rest = head.substr(at + 8);
  const size_t quote = rest.find('"');
  return quote != std::string_view::npos && quote < 8 &&
         rest.substr(quote + 1).starts_with(kJobSchema);
}

}  // namespace brickprof
