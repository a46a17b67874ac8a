// One walk of the recorder's events into a rank's summary (see
// rank_summary.h).
#include "agent/mpi/rank_summary.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/recorder/thread_walk.h"
#include "trace/derive/memory_accounts.h"
#include "trace/model/bricks.h"

namespace brickprof::agent::mpi {
namespace {

// Time statistics by name, in order of first sight, at most kMaxNames.
class NamedStats {
 public:
  explicit NamedStats(uint64_t* left_out) : left_out_(left_out) {}
  // The slot of `name` (a view that outlives this), or SIZE_MAX when full.
  size_t slot(std::string_view name, Category category) {
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    if (stats_.size() >= kMaxNames) {
      if (refused_.insert(name).second) ++*left_out_;
      return SIZE_MAX;
    }
    TimeStat s;
    s.name = std::string(name);
    s.category = category == Category::kNone ? Category::kOther : category;
    index_.emplace(name, stats_.size());
    stats_.push_back(std::move(s));
    return stats_.size() - 1;
  }
  void add(size_t slot, int64_t duration_ns) {
    if (slot != SIZE_MAX) stats_[slot].add(duration_ns);
  }
  std::vector<TimeStat> take() { return std::move(stats_); }

 private:
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<TimeStat> stats_;
  std::unordered_set<std::string_view> refused_;
  uint64_t* left_out_;
};

// The walk's visitor: a stack of open nodes per thread, each closed node
// counted into the summary.
class Summarizer {
 public:
  Summarizer(RankSummary& out, const CollectiveOf& collective_of, const ClockSync& sync)
      : out_(out), bricks_(&out.bricks_left_out), collective_of_(collective_of), sync_(sync) {}

  // The walk's finish() is next: the nodes it closes while it counts them
  // open at exit (not those a capture window or the buffer's cap ended,
  // which the trace ends there too) are still open.
  void finishing(const WalkCounts* counts) {
    counts_ = counts;
    open_before_ = counts->open_scopes_at_exit;
  }
  void next_thread() {
    open_.clear();
    counts_ = nullptr;
  }

  void open(uint32_t id, uint32_t, const Opened& o) {
    Open n{id, o.start_ns, o.arg, SIZE_MAX};
    if (o.info.kind == NodeKind::kBrick) n.brick = bricks_.slot(o.info.name, o.info.category);
    open_.push_back(n);
  }
  void close(uint32_t id, int64_t end_ns, bool clamp) {
    if (open_.empty() || open_.back().id != id) return;  // the walk closes innermost first
    const Open n = open_.back();
    open_.pop_back();
    if (counts_ && counts_->open_scopes_at_exit != open_before_) {
      ++out_.open_scopes;
      return;
    }
    if (clamp) end_ns = std::max(end_ns, n.start_ns);
    ++out_.scopes;
    const int64_t first = sync_.aligned(n.start_ns), last = sync_.aligned(end_ns);
    out_.first_ns = out_.scopes == 1 ? first : std::min(out_.first_ns, first);
    out_.last_ns = std::max(out_.last_ns, last);
    bricks_.add(n.brick, end_ns - n.start_ns);
    CollectiveArrival c;
    if (n.arg && collective_of_(n.arg, &c)) {
      if (out_.collectives.size() >= kMaxCollectives) {
        ++out_.collectives_left_out;
        return;
      }
      c.arrival_ns = first;
      c.end_ns = last;
      out_.collectives.push_back(c);
    }
  }
  void work(uint32_t, double, double) {}
  void launch(uint64_t, uint32_t, int64_t, int64_t, uint32_t) {}
  void graph_node(uint64_t, uint32_t) {}
  void range_start(uint64_t, uint64_t, uint32_t) {}
  void range_end(uint64_t, uint64_t) {}
  // Memory events, named as the trace names them, for memory_peaks().
  void memory(const MemoryEvent& e, uint32_t name_site) {
    memory_.memory.push_back(e);
    memory_.memory.back().name = memory_.strings.intern(Recorder::site(name_site).name);
  }
  void shapes(uint32_t, uint32_t) {}
  void checksum(uint32_t, uint32_t, uint64_t) {}
  void counter(const CounterSample&, uint32_t) {}
  void tile(const TileStats&) {}
  void cpu_counters(uint32_t, const uint64_t*) {}
  void consumed(const Recorder::Segment&) {}

  std::vector<TimeStat> bricks() { return bricks_.take(); }

  // Each account's highest live bytes, by the walk report --memory's
  // counter tracks take (trace/derive/memory_accounts.h), over the events
  // in time order as the exit write orders them.
  void memory_peaks(RankSummary& out) {
    std::stable_sort(memory_.memory.begin(), memory_.memory.end(),
                     [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
    MemoryAccounts accounts(memory_);
    std::vector<uint64_t> peaks;
    walk_memory_live(memory_, accounts, [&](uint32_t account, int64_t, uint64_t live) {
      if (account >= peaks.size()) peaks.resize(account + 1, 0);
      peaks[account] = std::max(peaks[account], live);
    });
    for (uint32_t a = 0; a < peaks.size(); ++a) {
      if (out.memory_peaks.size() >= kMaxMemoryPeaks) {
        ++out.memory_peaks_left_out;
        continue;
      }
      out.memory_peaks.push_back({account_label(memory_, accounts.keys()[a]), peaks[a]});
    }
  }

 private:
  struct Open {
    uint32_t id;
    int64_t start_ns;
    uint64_t arg;
    size_t brick;
  };
  RankSummary& out_;
  NamedStats bricks_;
  const CollectiveOf& collective_of_;
  const ClockSync& sync_;
  std::vector<Open> open_;
  Trace memory_;  // its memory events and their names only
  const WalkCounts* counts_ = nullptr;
  uint64_t open_before_ = 0;
};

// Kernels by name from the staged GPU records, as the trace's kernel nodes
// have them (GPU times are nanoseconds already: no fit involved).
void summarize_kernels(GpuDump* gpu, RankSummary& out) {
  if (!gpu) return;
  if (gpu->recorded_launches_only()) {
    // Which records the trace keeps depends on the launches' attribution,
    // which only the exit write does.
    out.note = "kernels not summarised: BRICKPROF_CAPTURE records a part of the run";
    return;
  }
  StagedRecords& records = gpu->records();
  NamedStats kernels(&out.kernels_left_out);
  for (size_t i = 0; i < records.size(); ++i) {
    const StagedRecord& r = records[i];
    if (r.node.kind != NodeKind::kKernel) continue;
    const std::string_view name = records.name(r);
    const size_t slot = kernels.slot(
        name, is_communication_kernel(name) ? Category::kCommunication : Category::kOther);
    kernels.add(slot, r.node.end_ns - r.node.start_ns);
  }
  out.kernels = kernels.take();
}

}  // namespace

RankSummary summarize_rank(const RecordingSoFar& so_far, const CollectiveOf& collective_of,
                           const ClockSync& sync) {
  RankSummary out;
  out.dropped_events = Recorder::dropped_events();
  Summarizer summarizer(out, collective_of, sync);
  WalkCounts counts;
  uint32_t next_id = 0;
  for (const Recorder::ThreadEvents& te : so_far.threads) {
    summarizer.next_thread();
    ThreadWalk<Summarizer> walk(te, next_id, so_far.clock, so_far.now_ticks, so_far.windows,
                                counts);
    while (walk.peek(summarizer)) walk.take(summarizer);
    summarizer.finishing(&counts);
    walk.finish(summarizer);
    next_id = walk.next_id();
  }
  out.bricks = summarizer.bricks();
  summarizer.memory_peaks(out);
  summarize_kernels(so_far.gpu, out);
  return out;
}

}  // namespace brickprof::agent::mpi
