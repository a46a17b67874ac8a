// The job summary's text and JSON (see job_summary_view.h).
#include "analysis/views/job_summary_view.h"

#include <algorithm>

#include "trace/json/json_writer.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr size_t kMaxNamesShown = 20;
constexpr size_t kMaxInstancesShown = 10;
constexpr size_t kMaxArrivalsShown = 8;

std::string label(const JobSummary& job, uint32_t index) {
  return index < job.ranks.size() ? "rank " + std::to_string(job.ranks[index].rank) : "?";
}

// The rank's largest memory account peak (0: it recorded no memory).
uint64_t largest_peak(const RankSummary& r) {
  uint64_t most = 0;
  for (const MemoryPeak& m : r.memory_peaks) most = std::max(most, m.peak_bytes);
  return most;
}

// Per memory account (as the ranks label them), the least and the most of
// the ranks' peaks, and the rank with the most.
void memory_table(const JobSummary& job, std::ostream& out) {
  struct Across {
    size_t ranks = 0;
    uint64_t least = 0, most = 0;
    uint32_t most_at = 0;
  };
  std::vector<std::pair<std::string, Across>> accounts;  // in order of first sight
  uint64_t left_out = 0;
  for (uint32_t i = 0; i < job.ranks.size(); ++i) {
    left_out += job.ranks[i].memory_peaks_left_out;
    for (const MemoryPeak& m : job.ranks[i].memory_peaks) {
      auto it = std::find_if(accounts.begin(), accounts.end(),
                             [&](const auto& a) { return a.first == m.account; });
      if (it == accounts.end()) it = accounts.insert(accounts.end(), {m.account, {0, m.peak_bytes, 0, i}});
      Across& a = it->second;
      ++a.ranks;
      a.least = std::min(a.least, m.peak_bytes);
      if (m.peak_bytes > a.most) {
        a.most = m.peak_bytes;
        a.most_at = i;
      }
    }
  }
  if (accounts.empty()) {
    out << "Memory: none recorded\n";
    return;
  }
  out << "Memory (each account's peak up to MPI_Finalize, report --memory's figure per rank):\n";
  out << "  " << pad_right("account", 40) << pad_left("ranks", 6) << pad_left("least", 11)
      << pad_left("most", 11) << "  most on\n";
  for (const auto& [name, a] : accounts)
    out << "  " << pad_right(clip(printable(name), 39), 40) << pad_left(std::to_string(a.ranks), 6)
        << pad_left(format_bytes(a.least), 11) << pad_left(format_bytes(a.most), 11) << "  "
        << label(job, a.most_at) << '\n';
  if (left_out) out << "  " << left_out << " accounts past " << kMaxMemoryPeaks << " a rank left out\n";
}

void rank_table(const JobSummary& job, const JobFigures& f, std::ostream& out) {
  out << "Ranks (up to MPI_Finalize; collectives on rank 0's clock):\n";
  out << "  " << pad_right("rank", 9) << pad_right("host", 14) << pad_left("pid", 8)
      << pad_left("scopes", 9) << pad_left("bricks", 9) << pad_left("brick time", 12)
      << pad_left("kernels", 9) << pad_left("GPU time", 11) << pad_left("colls", 7)
      << pad_left("in calls", 11) << pad_left("waiting", 11) << pad_left("last in", 9)
      << pad_left("mem peak", 10) << '\n';
  for (const JobRankRow& row : f.rows) {
    const RankSummary& r = job.ranks[row.index];
    const RankWaits* w =
        row.index < f.collectives.per_rank.size() ? &f.collectives.per_rank[row.index] : nullptr;
    out << "  " << pad_right(label(job, row.index), 9) << pad_right(clip(printable(r.host), 13), 14)
        << pad_left(std::to_string(r.pid), 8) << pad_left(std::to_string(r.scopes), 9)
        << pad_left(std::to_string(row.bricks), 9) << pad_left(format_duration(row.brick_ns), 12)
        << pad_left(std::to_string(row.kernels), 9) << pad_left(format_duration(row.kernel_ns), 11)
        << pad_left(std::to_string(w ? w->calls : 0), 7)
        << pad_left(format_duration(w ? w->call_ns : 0), 11)
        << pad_left(format_duration(w ? w->wait_ns : 0), 11)
        << pad_left(std::to_string(w ? w->last_arrivals : 0), 9)
        << pad_left(largest_peak(r) ? format_bytes(largest_peak(r)) : "-", 10) << '\n';
  }
  for (const RankSummary& r : job.ranks) {
    if (!r.clock_aligned)
      out << "  rank " << r.rank << ": clock not aligned with rank 0's (no clock sample)\n";
    if (r.open_scopes)
      out << "  rank " << r.rank << ": " << r.open_scopes
          << " scopes still open at MPI_Finalize are not counted\n";
    if (r.dropped_events)
      out << "  rank " << r.rank << ": " << r.dropped_events
          << " events dropped at the buffer cap (BRICKPROF_BUFFER_MB)\n";
    if (!r.note.empty()) out << "  rank " << r.rank << ": " << printable(r.note) << '\n';
  }
}

void stat_table(const JobSummary& job, const std::vector<JobStat>& stats, const char* what,
                const char* time_kind, std::ostream& out) {
  if (stats.empty()) {
    out << what << ": none recorded\n";
    return;
  }
  out << what << " over all ranks (" << time_kind << "; rank totals: the least and the most, "
      << "and which rank spent the most):\n";
  out << "  " << pad_right("name", 26) << pad_left("count", 8) << pad_left("total", 11)
      << pad_left("mean", 10) << pad_left("min", 10) << pad_left("max", 10) << pad_left("ranks", 6)
      << pad_left("rank min", 11) << pad_left("rank max", 11) << "  slowest\n";
  for (size_t i = 0; i < stats.size() && i < kMaxNamesShown; ++i) {
    const JobStat& s = stats[i];
    const int64_t mean = s.all.count ? s.all.total_ns / static_cast<int64_t>(s.all.count) : 0;
    out << "  " << pad_right(clip(printable(s.all.name), 25), 26)
        << pad_left(std::to_string(s.all.count), 8) << pad_left(format_duration(s.all.total_ns), 11)
        << pad_left(format_duration(mean), 10) << pad_left(format_duration(s.all.min_ns), 10)
        << pad_left(format_duration(s.all.max_ns), 10) << pad_left(std::to_string(s.ranks), 6)
        << pad_left(format_duration(s.rank_min_ns), 11)
        << pad_left(format_duration(s.rank_max_ns), 11) << "  " << label(job, s.slowest) << '\n';
  }
  if (stats.size() > kMaxNamesShown)
    out << "  ... " << stats.size() - kMaxNamesShown << " more (--json lists all)\n";
}

void collectives_text(const JobSummary& job, const CollectiveReport& r, std::ostream& out) {
  if (r.instances.empty()) {
    out << "Collectives: no MPI collective calls before MPI_Finalize\n";
    return;
  }
  out << "Collectives: " << r.instances.size() << " instances over " << job.ranks.size()
      << " ranks";
  if (r.incomplete) out << "; " << r.incomplete << " incomplete (a member sent no call)";
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
  std::vector<uint32_t> order(r.instances.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const size_t shown = std::min(kMaxInstancesShown, order.size());
  std::partial_sort(
      order.begin(), order.begin() + static_cast<long>(shown), order.end(),
      [&](uint32_t a, uint32_t b) { return r.instances[a].skew_ns() > r.instances[b].skew_ns(); });
  out << "  Largest arrival skew (arrival order, first to last; the last is the straggler):\n";
  for (size_t i = 0; i < shown; ++i) {
    const CollectiveInstance& inst = r.instances[order[i]];
    std::vector<CollectiveCall> calls(r.calls.begin() + inst.first_call,
                                      r.calls.begin() + inst.first_call + inst.call_count);
    std::stable_sort(calls.begin(), calls.end(),
                     [](const CollectiveCall& a, const CollectiveCall& b) {
                       return a.arrival_ns < b.arrival_ns;
                     });
    out << "    " << pad_right(to_string(inst.op), 14) << "#"
        << pad_right(std::to_string(inst.seq), 7) << "skew "
        << pad_left(format_duration(inst.skew_ns()), 9) << "  order:";
    for (size_t j = 0; j < calls.size() && j < kMaxArrivalsShown; ++j)
      out << (j ? ", " : " ") << label(job, calls[j].rank);
    if (calls.size() > kMaxArrivalsShown) out << " ...";
    out << '\n';
  }
  if (r.instances.size() > shown)
    out << "    ... " << r.instances.size() - shown << " more (--json lists all)\n";
}

void stats_json(JsonWriter& w, const char* key, const JobSummary& job,
                const std::vector<JobStat>& stats) {
  w.key(key).begin_array();
  for (const JobStat& s : stats)
    w.newline()
        .begin_object()
        .field("name", s.all.name)
        .field("category", to_string(s.all.category))
        .field("count", s.all.count)
        .field("total_ns", s.all.total_ns)
        .field("min_ns", s.all.min_ns)
        .field("max_ns", s.all.max_ns)
        .field("ranks", s.ranks)
        .field("rank_min_ns", s.rank_min_ns)
        .field("rank_max_ns", s.rank_max_ns)
        .field("slowest_rank", s.slowest < job.ranks.size() ? job.ranks[s.slowest].rank : -1)
        .end_object();
  w.end_array();
}

}  // namespace

void job_summary_text(const JobSummary& job, const JobFigures& f, std::ostream& out) {
  out << "Job summary: " << printable(job.program.empty() ? "?" : job.program) << ", "
      << job.ranks.size() << " of " << job.world_size
      << " ranks (those with the agent), reduced at MPI_Finalize\n";
  for (const std::string& note : job.notes) out << "  note: " << printable(note) << '\n';
  out << '\n';
  rank_table(job, f, out);
  out << '\n';
  stat_table(job, f.bricks, "Bricks", "CPU-side time", out);
  out << '\n';
  stat_table(job, f.kernels, "Kernels", "GPU time", out);
  out << '\n';
  collectives_text(job, f.collectives, out);
  out << '\n';
  memory_table(job, out);
  int64_t slowest_summary = 0;
  uint64_t largest_record = 0;
  for (const RankSummary& r : job.ranks) {
    slowest_summary = std::max(slowest_summary, r.summarize_ns);
    largest_record = std::max(largest_record, r.wire_bytes);
  }
  out << "\nReduction: " << format_bytes(job.gathered_bytes) << " gathered to rank 0 in "
      << format_duration(job.gather_records_ns) << " (the ranks reached MPI_Finalize within "
      << format_duration(job.gather_sizes_ns) << " of rank 0); a rank's summary took at most "
      << format_duration(slowest_summary) << " and sent at most " << format_bytes(largest_record)
      << "\n";
}

void job_summary_json(const JobSummary& job, const JobFigures& f, std::ostream& out) {
  JsonWriter w(out);
  w.begin_object().field("schema", kJobSchema).field("world_size", job.world_size);
  w.field("program", job.program);
  w.key("notes").begin_array();
  for (const std::string& n : job.notes) w.value(n);
  w.end_array();
  w.key("ranks").begin_array();
  for (const JobRankRow& row : f.rows) {
    const RankSummary& r = job.ranks[row.index];
    const RankWaits& c = f.collectives.per_rank[row.index];
    w.newline().begin_object().field("index", row.index).field("rank", r.rank);
    w.field("host", r.host).field("pid", r.pid).field("clock_aligned", r.clock_aligned);
    w.field("scopes", r.scopes).field("open_scopes", r.open_scopes);
    w.field("bricks", row.bricks).field("brick_ns", row.brick_ns);
    w.field("kernels", row.kernels).field("kernel_ns", row.kernel_ns);
    w.field("collective_calls", c.calls).field("call_ns", c.call_ns);
    w.field("wait_ns", c.wait_ns).field("last_arrivals", c.last_arrivals);
    w.key("memory_peaks").begin_array();
    for (const MemoryPeak& m : r.memory_peaks)
      w.begin_object().field("account", m.account).field("peak_bytes", m.peak_bytes).end_object();
    w.end_array();
    w.field("dropped_events", r.dropped_events);
    w.field("summarize_ns", r.summarize_ns).field("wire_bytes", r.wire_bytes).end_object();
  }
  w.end_array();
  stats_json(w, "bricks", job, f.bricks);
  stats_json(w, "kernels", job, f.kernels);
  const CollectiveReport& r = f.collectives;
  w.key("collectives").begin_object();
  w.field("instances_count", r.instances.size()).field("incomplete", r.incomplete);
  write_collective_ops_json(w, r.ops);
  w.key("instances").begin_array();
  for (const CollectiveInstance& inst : r.instances) {
    w.newline().begin_object().field("op", to_string(inst.op));
    write_instance_figures_json(w, inst);
    w.key("calls").begin_array();
    for (uint32_t j = 0; j < inst.call_count; ++j) {
      const CollectiveCall& c = r.calls[inst.first_call + j];
      w.begin_object()
          .field("rank", c.rank)
          .field("arrival_ns", c.arrival_ns)
          .field("end_ns", c.end_ns)
          .field("wait_ns", c.wait_ns)
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
  w.key("reduction").begin_object();
  w.field("gather_sizes_ns", job.gather_sizes_ns);
  w.field("gather_records_ns", job.gather_records_ns).field("unpack_ns", job.unpack_ns);
  w.field("gathered_bytes", job.gathered_bytes).end_object();
  w.end_object();
  w.flush();
  out << '\n';
}

}  // namespace brickprof
