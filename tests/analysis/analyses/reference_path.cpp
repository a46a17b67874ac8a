// The critical path of analysis/README.md's dependency model, the slow way
// (see reference_path.h).
#include "tests/analysis/analyses/reference_path.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <vector>

namespace brickprof::test {
namespace {

struct Activity {
  int64_t start = 0;
  int64_t measured = 0;  // duration as recorded
  int64_t duration = 0;  // as modelled (a host wait: its own part only)
  bool on_stream = false;
  bool wait = false;
  uint32_t node = kNoNode;  // owner; kNoNode: untracked
  std::vector<size_t> preds;
  int64_t end() const { return start + measured; }
};

// A stretch of a thread that may own time: a scope, or a host wait.
struct Interval {
  int64_t start, end;
  uint32_t node;
  bool wait;
};

struct StreamOp {
  int64_t issue;
  uint32_t node;
  size_t act = 0;
};

bool is_record(const Trace& t, const Node& n) {
  const GpuDetail* d = t.detail(n);
  const std::string_view name = t.name(n);
  return n.kind == NodeKind::kSync && d && d->sync == SyncKind::kEvent &&
         (name.find("Record") != std::string_view::npos ||
          name.find("record") != std::string_view::npos);
}

bool is_marker(const Trace& t, const Node& n) {
  const GpuDetail* d = t.detail(n);
  return n.kind == NodeKind::kSync && d && (d->sync == SyncKind::kStreamWait || is_record(t, n));
}

class Reference {
 public:
  explicit Reference(const Trace& t) : t_(t) {}
  ReferencePath run();

 private:
  void threads();
  void streams();
  void waits_and_edges();
  int64_t done(size_t a);
  int64_t release(int64_t at) const;

  const Trace& t_;
  std::vector<Activity> acts_;
  std::map<uint32_t, std::vector<Interval>> intervals_;                   // by thread
  std::map<uint32_t, std::vector<std::pair<int64_t, uint32_t>>> points_;  // by thread
  std::map<std::pair<uint32_t, uint32_t>, std::vector<StreamOp>> lanes_;  // by (device, stream)
  std::map<uint32_t, size_t> wait_act_, stream_act_;                      // by node
  std::map<uint32_t, std::vector<size_t>> thread_acts_;  // by thread, in time order
  std::vector<TimeRange> unrecorded_;
  int64_t origin_ = 0;
  std::map<size_t, int64_t> done_;
};

bool in_windows(const Trace& t, int64_t a, int64_t b) {
  const auto& windows = t.diagnostics.capture_windows;
  if (windows.empty()) return true;
  for (const TimeRange& w : windows)
    if (w.start_ns <= a && b <= w.end_ns) return true;
  return false;
}

void Reference::threads() {
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    const Node& n = t_.nodes[i];
    if (is_range_lane(n.thread)) continue;
    const GpuDetail* d = t_.detail(n);
    if (is_cpu_kind(n.kind)) {
      intervals_[n.thread].push_back({n.start_ns, n.end_ns, i, false});
    } else if (n.kind == NodeKind::kSync && !is_marker(t_, n)) {
      intervals_[n.thread].push_back({n.start_ns, n.end_ns, i, true});
    } else if (d && d->api_start_ns) {
      points_[n.thread].push_back({d->api_start_ns, i});
      if (n.kind != NodeKind::kKernel && !is_marker(t_, n) && d->api_end_ns >= n.end_ns)
        intervals_[n.thread].push_back({d->api_start_ns, d->api_end_ns, i, true});
    } else if (is_marker(t_, n)) {
      points_[n.thread].push_back({n.start_ns, i});
    } else if (n.parent != kNoNode && is_cpu_kind(t_.nodes[n.parent].kind)) {
      const Node& p = t_.nodes[n.parent];
      points_[p.thread].push_back({std::clamp(n.start_ns, p.start_ns, p.end_ns), i});
    }
  }
  std::set<uint32_t> tids;
  for (const auto& [tid, v] : intervals_) tids.insert(tid);
  for (const auto& [tid, v] : points_) tids.insert(tid);
  for (uint32_t tid : tids) {
    const std::vector<Interval>& ivs = intervals_[tid];
    auto& pts = points_[tid];
    // Nothing is issued from a blocked thread: a launch inside a host wait
    // counts as issued when the wait began.
    for (auto& [at, node] : pts)
      for (const Interval& iv : ivs)
        if (iv.wait && iv.start < at && at < iv.end) at = iv.start;
    // Where the product cuts a thread: every scope and wait boundary, every
    // launch; untracked time also at the capture windows' edges.
    std::set<int64_t> cuts, hard;
    for (const Interval& iv : ivs) hard.insert(iv.start), hard.insert(iv.end);
    for (const auto& [at, node] : pts) hard.insert(at);
    cuts = hard;
    for (const TimeRange& w : t_.diagnostics.capture_windows)
      cuts.insert(w.start_ns), cuts.insert(w.end_ns);
    const int64_t lo = *hard.begin(), hi = *hard.rbegin();
    std::vector<size_t>& mine = thread_acts_[tid];
    for (auto it = cuts.lower_bound(lo); it != cuts.end() && *it < hi; ++it) {
      const int64_t a = *it, b = *std::next(it);
      // The innermost interval over [a, b]: the latest to start, then the
      // shortest, then the last listed (a child after its parent).
      const Interval* owner = nullptr;
      for (const Interval& iv : ivs) {
        if (iv.start > a || iv.end < b) continue;
        if (!owner || iv.start > owner->start ||
            (iv.start == owner->start &&
             (iv.end < owner->end || (iv.end == owner->end && iv.node > owner->node))))
          owner = &iv;
      }
      if (!owner && !in_windows(t_, a, b)) continue;
      const uint32_t node = owner ? owner->node : kNoNode;
      if (!mine.empty()) {
        Activity& last = acts_[mine.back()];
        if (owner && last.node == node && last.end() == a && !hard.count(a)) {
          last.measured = last.duration = b - last.start;  // a window's edge does not cut a scope
          continue;
        }
      }
      Activity act;
      act.start = a;
      act.measured = act.duration = b - a;
      act.node = node;
      act.wait = owner && owner->wait;
      if (!mine.empty()) act.preds.push_back(mine.back());
      acts_.push_back(act);
      mine.push_back(acts_.size() - 1);
      if (act.wait) wait_act_[node] = acts_.size() - 1;
    }
  }
}

void Reference::streams() {
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    const Node& n = t_.nodes[i];
    const GpuDetail* d = t_.detail(n);
    if (is_cpu_kind(n.kind) || is_range_lane(n.thread) || !d) continue;
    if (n.kind == NodeKind::kSync && !is_marker(t_, n)) continue;
    const int64_t issue = d->api_start_ns ? d->api_start_ns : n.start_ns;
    lanes_[{d->device, d->stream}].push_back({issue, i});
  }
  for (auto& [lane, ops] : lanes_) {
    std::stable_sort(ops.begin(), ops.end(),
                     [](const StreamOp& a, const StreamOp& b) { return a.issue < b.issue; });
    for (size_t k = 0; k < ops.size(); ++k) {
      const Node& n = t_.nodes[ops[k].node];
      Activity act;
      act.on_stream = true;
      act.node = ops[k].node;
      const bool marker = n.kind == NodeKind::kSync;
      act.start = marker ? ops[k].issue : n.start_ns;
      act.measured = act.duration = marker ? 0 : n.duration_ns();
      if (k) act.preds.push_back(ops[k - 1].act);
      acts_.push_back(act);
      ops[k].act = acts_.size() - 1;
      stream_act_[ops[k].node] = ops[k].act;
    }
  }
  // Launches: the thread's activity that ended at the issue point (or before).
  for (const auto& [tid, pts] : points_)
    for (const auto& [at, node] : pts) {
      size_t from = SIZE_MAX;
      for (size_t a : thread_acts_[tid])
        if (acts_[a].end() <= at) from = a;
      if (from != SIZE_MAX) acts_[stream_act_.at(node)].preds.push_back(from);
    }
}

void Reference::waits_and_edges() {
  // The latest op of `ops` issued at or before `at` that `keep` accepts.
  auto latest = [&](const std::vector<StreamOp>& ops, int64_t at, auto keep) {
    size_t best = SIZE_MAX;
    for (const StreamOp& op : ops)
      if (op.issue <= at && keep(op)) best = op.act;
    return best;
  };
  auto record_of = [&](uint64_t event, int64_t at) {
    size_t best = SIZE_MAX;
    int64_t best_issue = INT64_MIN;
    for (const auto& [lane, ops] : lanes_)
      for (const StreamOp& op : ops) {
        const Node& n = t_.nodes[op.node];
        if (!is_record(t_, n) || t_.detail(n)->event != event || op.issue > at) continue;
        if (op.issue >= best_issue) best = op.act, best_issue = op.issue;
      }
    return best;
  };
  for (auto& [lane, ops] : lanes_)
    for (const StreamOp& op : ops) {
      const GpuDetail* d = t_.detail(t_.nodes[op.node]);
      if (t_.nodes[op.node].kind == NodeKind::kSync && d->sync == SyncKind::kStreamWait)
        if (size_t r = record_of(d->event, op.issue); r != SIZE_MAX)
          acts_[op.act].preds.push_back(r);
    }
  for (const auto& [node, act] : wait_act_) {
    const Node& n = t_.nodes[node];
    const GpuDetail* d = t_.detail(n);
    const int64_t at = acts_[act].start;
    std::vector<size_t> sources;
    if (n.kind != NodeKind::kSync) {
      sources.push_back(stream_act_.at(node));
    } else if (d && d->sync == SyncKind::kEvent) {
      sources.push_back(record_of(d->event, at));
    } else if (d && d->sync == SyncKind::kStream) {
      if (auto it = lanes_.find({d->device, d->stream}); it != lanes_.end())
        sources.push_back(latest(it->second, at, [](const StreamOp&) { return true; }));
    } else if (d && (d->sync == SyncKind::kContext || d->sync == SyncKind::kDevice)) {
      for (const auto& [lane, ops] : lanes_)
        if (lane.first == d->device)
          sources.push_back(latest(ops, at, [](const StreamOp&) { return true; }));
    }
    for (size_t s : sources)
      if (s != SIZE_MAX) acts_[act].preds.push_back(s);
  }
  // The trace's edges join whole nodes.
  auto last_inside = [&](uint32_t node) -> size_t {
    const Node& n = t_.nodes[node];
    if (!is_cpu_kind(n.kind)) {
      if (n.kind == NodeKind::kSync && !is_marker(t_, n))
        return wait_act_.count(node) ? wait_act_[node] : SIZE_MAX;
      return stream_act_.count(node) ? stream_act_[node] : SIZE_MAX;
    }
    size_t found = SIZE_MAX;
    for (size_t a : thread_acts_[n.thread])
      if (acts_[a].start >= n.start_ns && acts_[a].end() <= n.end_ns) found = a;
    return found;
  };
  auto first_inside = [&](uint32_t node) -> size_t {
    const Node& n = t_.nodes[node];
    if (!is_cpu_kind(n.kind)) {
      if (wait_act_.count(node)) return wait_act_[node];
      return stream_act_.count(node) ? stream_act_[node] : SIZE_MAX;
    }
    for (size_t a : thread_acts_[n.thread])
      if (acts_[a].start >= n.start_ns && acts_[a].end() <= n.end_ns) return a;
    return SIZE_MAX;
  };
  for (const Edge& e : t_.edges) {
    if (e.type != EdgeType::kSequence && e.type != EdgeType::kDependsOn) continue;
    const size_t from = last_inside(e.src), to = first_inside(e.dst);
    if (from != SIZE_MAX && to != SIZE_MAX) acts_[to].preds.push_back(from);
  }
}

// When a stream activity's work was done, as measured: its end, and no
// earlier than its stream predecessors'.
int64_t Reference::done(size_t a) {
  if (auto it = done_.find(a); it != done_.end()) return it->second;
  int64_t at = acts_[a].end();
  for (size_t p : acts_[a].preds)
    if (acts_[p].on_stream) at = std::max(at, done(p));
  return done_[a] = at;
}

int64_t Reference::release(int64_t at) const {
  int64_t left_out = 0;
  for (const TimeRange& u : unrecorded_)
    left_out += std::max<int64_t>(0, std::min(at, u.end_ns) - u.start_ns);
  return at - origin_ - left_out;
}

ReferencePath Reference::run() {
  threads();
  streams();
  waits_and_edges();
  ReferencePath r;
  r.activities = acts_.size();
  if (acts_.empty()) return r;
  origin_ = acts_[0].start;
  int64_t end = acts_[0].end();
  for (const Activity& a : acts_)
    origin_ = std::min(origin_, a.start), end = std::max(end, a.end());
  // Time between windows that no activity touches was not recorded.
  const auto& windows = t_.diagnostics.capture_windows;
  if (!windows.empty()) {
    std::vector<TimeRange> outside;
    int64_t at = origin_;
    for (const TimeRange& w : windows) {
      if (w.start_ns > at) outside.push_back({at, std::min(w.start_ns, end)});
      at = std::max(at, w.end_ns);
    }
    if (at < end) outside.push_back({at, end});
    for (const TimeRange& o : outside) {
      if (o.end_ns <= o.start_ns) continue;
      bool touched = false;
      for (const Activity& a : acts_) touched |= a.start < o.end_ns && o.start_ns < a.end();
      if (!touched) unrecorded_.push_back(o);
    }
  }
  for (size_t a = 0; a < acts_.size(); ++a) {
    if (!acts_[a].wait) continue;
    int64_t gpu_done = acts_[a].start;
    for (size_t p : acts_[a].preds)
      if (acts_[p].on_stream) gpu_done = std::max(gpu_done, done(p));
    acts_[a].duration = std::max<int64_t>(0, acts_[a].end() - gpu_done);
  }
  r.measured_span_ns = release(end);
  // Earliest finishes by relaxation until nothing moves (|V| rounds at most
  // on a graph without cycles): no topological order needed.
  std::vector<int64_t> finish(acts_.size(), INT64_MIN);
  for (size_t round = 0; round <= acts_.size(); ++round) {
    bool moved = false;
    for (size_t a = 0; a < acts_.size(); ++a) {
      int64_t start = acts_[a].preds.empty() ? release(acts_[a].start) : INT64_MIN;
      bool ready = true;
      for (size_t p : acts_[a].preds) {
        if (finish[p] == INT64_MIN) ready = false;
        start = std::max(start, finish[p]);
      }
      if (!ready) continue;
      const int64_t f = start + acts_[a].duration;
      if (f != finish[a]) finish[a] = f, moved = true;
    }
    if (!moved) break;
  }
  for (int64_t f : finish) r.length_ns = std::max(r.length_ns, f);
  return r;
}

}  // namespace

ReferencePath reference_critical_path(const Trace& trace) { return Reference(trace).run(); }

}  // namespace brickprof::test
