// GPU idle-time analysis (see gpu_idle.h).
#include "analysis/analyses/gpu_idle.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/analyses/lane_sort.h"

namespace brickprof {
namespace {

// The largest gaps kept per device (a ranking: gap_sizes counts them all).
constexpr size_t kLargestGaps = 10;

// An interval on a lane (a device's operations, a thread's scopes, a
// thread's host waits), ordered by start, the longer first on a tie so an
// enclosing scope comes before the scopes it holds.
struct Span {
  uint32_t lane = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint32_t index = 0;  // node id, or gap index for host waits
  bool operator<(const Span& o) const { return start != o.start ? start < o.start : end > o.end; }
};

// A stretch of a thread's timeline and the innermost CPU scope open in it.
struct Piece {
  int64_t start = 0;
  int64_t end = 0;
  StringId scope = kNoScope;
};

// Dense indices for sparse ids (devices, OS threads).
class Lanes {
 public:
  uint32_t of(uint32_t id) {
    auto [it, added] = index_.try_emplace(id, static_cast<uint32_t>(ids_.size()));
    if (added) ids_.push_back(id);
    return it->second;
  }
  uint32_t id(uint32_t lane) const { return ids_[lane]; }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<uint32_t, uint32_t> index_;
  std::vector<uint32_t> ids_;
};

// Flattens each thread's nested scopes (sorted per lane) into pieces.
std::vector<std::vector<Piece>> innermost_pieces(const Trace& t, const std::vector<Span>& scopes,
                                                 size_t threads) {
  std::vector<std::vector<Piece>> pieces(threads);
  std::vector<Span> open;
  int64_t at = 0;
  auto emit = [&](uint32_t lane, int64_t end, const Span& s) {
    if (end > at) pieces[lane].push_back({at, end, t.nodes[s.index].name});
    at = std::max(at, end);
  };
  for (size_t i = 0; i < scopes.size(); ++i) {
    const Span& s = scopes[i];
    while (!open.empty() && open.back().end <= s.start) {
      emit(s.lane, open.back().end, open.back());
      open.pop_back();
    }
    if (!open.empty()) emit(s.lane, s.start, open.back());
    at = open.empty() ? s.start : std::max(at, s.start);
    open.push_back(s);
    const bool last_of_lane = i + 1 == scopes.size() || scopes[i + 1].lane != s.lane;
    if (last_of_lane)
      while (!open.empty()) {
        emit(s.lane, open.back().end, open.back());
        open.pop_back();
      }
  }
  return pieces;
}

// The capture windows as a clip for one device's gaps. Gaps come in time
// order, so a cursor keeps the walk linear.
class RecordedTime {
 public:
  explicit RecordedTime(const std::vector<TimeRange>& windows) : windows_(windows) {}
  // Calls piece(start, end) for each part of [a, b) that was recorded (all
  // of it when the trace has no windows); returns their total.
  template <typename OnPiece>
  int64_t clip(int64_t a, int64_t b, OnPiece piece) {
    if (windows_.empty()) {
      if (b <= a) return 0;
      piece(a, b);
      return b - a;
    }
    while (next_ < windows_.size() && windows_[next_].end_ns <= a) ++next_;
    int64_t total = 0;
    for (size_t j = next_; j < windows_.size() && windows_[j].start_ns < b; ++j) {
      int64_t start = std::max(a, windows_[j].start_ns), end = std::min(b, windows_[j].end_ns);
      if (end <= start) continue;
      piece(start, end);
      total += end - start;
    }
    return total;
  }

 private:
  const std::vector<TimeRange>& windows_;
  size_t next_ = 0;
};

struct DeviceWork {
  DeviceIdle idle;
  std::vector<IdleGap> gaps;
  std::vector<Span> host_waits;  // lane = thread lane, index = gap
};

// Walks one device's operations (sorted): busy time and the gaps between.
// With capture windows, each recorded piece of a gap is a gap of its own.
void find_gaps(const Trace& t, const Span* first, const Span* last, Lanes& threads, DeviceWork& w) {
  w.idle.operations = static_cast<uint64_t>(last - first);
  RecordedTime recorded(t.diagnostics.capture_windows);
  int64_t busy_start = first->start, busy_end = first->end;
  for (const Span* op = first + 1; op <= last; ++op) {
    if (op != last && op->start <= busy_end) {
      busy_end = std::max(busy_end, op->end);
      continue;
    }
    w.idle.busy_ns += busy_end - busy_start;
    if (op == last) break;
    // Of the operations that start when the gap ends, the one issued first
    // ends it: if any was queued before the gap, the GPU was not waiting
    // for the host. Unknown only when none has an API time.
    const Span* first_issued = op;
    for (const Span* tie = op; tie != last && tie->start == op->start; ++tie) {
      const int64_t api = t.detail(t.nodes[tie->index])->api_start_ns;
      const int64_t best = t.detail(t.nodes[first_issued->index])->api_start_ns;
      if (api != 0 && (best == 0 || api < best)) first_issued = tie;
    }
    const uint32_t next_id = first_issued->index;
    const Node& next = t.nodes[next_id];
    const GpuDetail& d = *t.detail(next);
    const int64_t issued_at = std::min(d.api_start_ns, op->start);
    auto add_gap = [&](int64_t start, int64_t end) {
      IdleGap gap{start, end - start, 0, next_id, kNoScope};
      if (d.api_start_ns == 0) {
        w.idle.unknown_ns += gap.ns;
      } else {
        gap.host_ns = std::clamp<int64_t>(issued_at - start, 0, gap.ns);
        w.idle.host_ns += gap.host_ns;
        w.idle.issued_ns += gap.ns - gap.host_ns;
        if (gap.host_ns > 0)
          w.host_waits.push_back({threads.of(next.thread), start, start + gap.host_ns,
                                  static_cast<uint32_t>(w.gaps.size())});
      }
      size_t bucket = 0;
      while (bucket < kGapBucketLimitsNs.size() && gap.ns >= kGapBucketLimitsNs[bucket]) ++bucket;
      w.idle.buckets[bucket].count++;
      w.idle.buckets[bucket].ns += gap.ns;
      w.gaps.push_back(std::move(gap));
    };
    const int64_t recorded_ns = recorded.clip(busy_end, op->start, add_gap);
    w.idle.outside_capture_ns += (op->start - busy_end) - recorded_ns;
    busy_start = op->start;
    busy_end = op->end;
  }
  w.idle.span_ns = busy_end - first->start;
  w.idle.gaps = w.gaps.size();
}

// The union of the kernels' intervals among one device's operations.
int64_t kernel_busy_ns(const Trace& t, const Span* first, const Span* last) {
  int64_t busy = 0, start = 0, end = 0;
  bool open = false;
  for (const Span* op = first; op != last; ++op) {
    if (t.nodes[op->index].kind != NodeKind::kKernel) continue;
    if (open && op->start <= end) {
      end = std::max(end, op->end);
      continue;
    }
    if (open) busy += end - start;
    start = op->start;
    end = op->end;
    open = true;
  }
  return open ? busy + (end - start) : 0;
}

// Charges each host wait to the innermost scopes its thread was in.
void name_host_waits(const Trace& t, const std::vector<std::vector<Piece>>& pieces, DeviceWork& w) {
  std::unordered_map<StringId, int64_t> by_scope;
  std::vector<size_t> cursor(pieces.size(), 0);
  for (const Span& wait : w.host_waits) {
    int64_t covered = 0, best = 0;
    StringId best_scope = kNoScope;
    if (wait.lane < pieces.size()) {
      const std::vector<Piece>& p = pieces[wait.lane];
      size_t& k = cursor[wait.lane];
      while (k < p.size() && p[k].end <= wait.start) ++k;
      for (size_t j = k; j < p.size() && p[j].start < wait.end; ++j) {
        int64_t ns = std::min(wait.end, p[j].end) - std::max(wait.start, p[j].start);
        by_scope[p[j].scope] += ns;
        covered += ns;
        if (ns > best) {
          best = ns;
          best_scope = p[j].scope;
        }
      }
    }
    int64_t unscoped = (wait.end - wait.start) - covered;
    if (unscoped > 0) by_scope[kNoScope] += unscoped;
    if (unscoped > best) best_scope = kNoScope;
    w.gaps[wait.index].host_scope = best_scope;
  }
  for (const auto& [scope, ns] : by_scope) w.idle.host_scopes.push_back({scope, ns});
  std::sort(w.idle.host_scopes.begin(), w.idle.host_scopes.end(),
            [&](const HostWait& a, const HostWait& b) {
              if (a.ns != b.ns) return a.ns > b.ns;
              return scope_name(t, a.scope) < scope_name(t, b.scope);
            });
}

}  // namespace

std::string_view scope_name(const Trace& trace, StringId scope) {
  return scope == kNoScope ? std::string_view("(no scope)") : trace.strings.view(scope);
}

GpuIdleReport analyze_gpu_idle(const Trace& t) {
  Lanes devices, threads;
  std::vector<Span> ops, scopes;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (is_cpu_kind(n.kind)) {
      if (!is_range_lane(n.thread))
        scopes.push_back({threads.of(n.thread), n.start_ns, n.end_ns, i});
      continue;
    }
    const GpuDetail* d = t.detail(n);
    if (n.kind == NodeKind::kSync || !d) continue;  // syncs are host waits, not GPU work
    ops.push_back({devices.of(d->device), n.start_ns, n.end_ns, i});
  }
  group_by_lane(ops, devices.size());
  group_by_lane(scopes, threads.size());
  const std::vector<std::vector<Piece>> pieces = innermost_pieces(t, scopes, threads.size());

  GpuIdleReport report;
  for (size_t begin = 0; begin < ops.size();) {
    size_t end = begin;
    while (end < ops.size() && ops[end].lane == ops[begin].lane) ++end;
    DeviceWork w;
    w.idle.device = devices.id(ops[begin].lane);
    w.idle.name = "gpu" + std::to_string(w.idle.device);
    for (const Device& dev : t.devices)
      if (dev.id == w.idle.device && !dev.name.empty()) w.idle.name = dev.name;
    find_gaps(t, ops.data() + begin, ops.data() + end, threads, w);
    w.idle.kernel_busy_ns = kernel_busy_ns(t, ops.data() + begin, ops.data() + end);
    group_by_lane(w.host_waits, threads.size());
    name_host_waits(t, pieces, w);
    size_t k = std::min(kLargestGaps, w.gaps.size());
    std::partial_sort(w.gaps.begin(), w.gaps.begin() + static_cast<std::ptrdiff_t>(k), w.gaps.end(),
                      [](const IdleGap& a, const IdleGap& b) {
                        return a.ns != b.ns ? a.ns > b.ns : a.start_ns < b.start_ns;
                      });
    w.gaps.resize(k);
    w.idle.largest = std::move(w.gaps);
    report.devices.push_back(std::move(w.idle));
    begin = end;
  }
  std::sort(report.devices.begin(), report.devices.end(),
            [](const DeviceIdle& a, const DeviceIdle& b) { return a.device < b.device; });
  return report;
}

}  // namespace brickprof
