// Builds the activity dependency graph (model in dependency_graph.h).
#include "analysis/analyses/dependency_graph.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "analysis/analyses/lane_sort.h"

namespace brickprof {
namespace {

// A span of CPU time on one thread: a scope, or a host wait.
struct Interval {
  int64_t start;
  int64_t end;
  uint32_t node;
  uint32_t lane;
  bool wait;
  bool operator<(const Interval& o) const {
    // Outer before inner at equal starts, so the stack sees parents first.
    return start != o.start ? start < o.start : end > o.end;
  }
};

// A point on a thread where GPU work was issued.
struct IssuePoint {
  int64_t time;
  uint32_t node;
  uint32_t lane;
  bool operator<(const IssuePoint& o) const { return time < o.time; }
};

// A GPU operation (or record / stream-wait marker) in its stream's issue order.
struct StreamOp {
  int64_t issue;
  uint32_t node;
  uint32_t lane;
  bool operator<(const StreamOp& o) const { return issue < o.issue; }
};

bool contains_record(std::string_view name) {
  for (size_t i = 0; i + 6 <= name.size(); ++i) {
    std::string_view w = name.substr(i, 6);
    if ((w[0] == 'R' || w[0] == 'r') && w.substr(1) == "ecord") return true;
  }
  return false;
}

class Builder {
 public:
  explicit Builder(const Trace& t)
      : t_(t), first_(t.nodes.size(), kNoNode), last_(t.nodes.size(), kNoNode) {}
  DependencyGraph build();

 private:
  uint32_t thread_lane(uint32_t thread);
  uint32_t stream_lane(uint32_t device, uint32_t stream);
  void classify();
  void reserve();
  void sweep_threads();
  void sweep_one(uint32_t lane, size_t iv_begin, size_t iv_end, size_t pt_begin, size_t pt_end);
  uint32_t add_activity(uint32_t owner, uint32_t lane, int64_t start, int64_t dur);
  void emit(int64_t a, int64_t b, uint32_t owner, uint32_t lane, bool wait, uint32_t* wait_act);
  void emit_untracked(int64_t a, int64_t b, uint32_t lane);
  void build_streams();
  void link_waits();
  void link_trace_edges();
  void order();
  void measure_span();
  void shorten_waits();

  const Trace& t_;
  DependencyGraph g_;
  std::unordered_map<uint32_t, uint32_t> thread_lanes_;
  std::unordered_map<uint64_t, uint32_t> stream_lanes_;
  uint32_t last_thread_ = 0, last_thread_lane_ = kNoNode;
  uint64_t last_stream_ = 0;
  uint32_t last_stream_lane_ = kNoNode;
  std::vector<Interval> intervals_;
  size_t waits_ = 0;  // host-wait intervals among them
  std::vector<IssuePoint> points_;
  std::vector<StreamOp> ops_;
  std::vector<uint32_t> first_, last_;                    // per node: its first/last activity
  std::vector<uint32_t> issued_from_;                     // per point: CPU activity before it
  std::vector<std::pair<uint32_t, uint32_t>> wait_acts_;  // (node, host-wait activity)
  std::vector<std::pair<uint32_t, uint32_t>> edges_;      // (from, to)
  // Sweep state.
  size_t next_point_ = 0, points_end_ = 0;
  uint32_t last_act_ = kNoNode;
  // Per stream lane: ops in issue order, as activity ids and issue times.
  std::vector<std::vector<std::pair<int64_t, uint32_t>>> lane_ops_;
  std::vector<uint32_t> lanes_of_device_;
  uint32_t first_stream_act_ = 0;  // stream activities are the last ones added
};

// Consecutive nodes mostly share a thread (and a stream): the last answer is
// kept so the maps are hashed only when the lane changes.
uint32_t Builder::thread_lane(uint32_t thread) {
  if (last_thread_lane_ != kNoNode && thread == last_thread_) return last_thread_lane_;
  auto [it, added] = thread_lanes_.emplace(thread, static_cast<uint32_t>(g_.lanes.size()));
  if (added) g_.lanes.push_back(Lane{Lane::Kind::kThread, thread, 0, 0});
  last_thread_ = thread;
  return last_thread_lane_ = it->second;
}

uint32_t Builder::stream_lane(uint32_t device, uint32_t stream) {
  uint64_t key = (static_cast<uint64_t>(device) << 32) | stream;
  if (last_stream_lane_ != kNoNode && key == last_stream_) return last_stream_lane_;
  auto [it, added] = stream_lanes_.emplace(key, static_cast<uint32_t>(g_.lanes.size()));
  if (added) g_.lanes.push_back(Lane{Lane::Kind::kStream, 0, device, stream});
  last_stream_ = key;
  return last_stream_lane_ = it->second;
}

// Sorts every node into thread intervals, issue points and stream operations.
void Builder::classify() {
  intervals_.reserve(t_.nodes.size());
  ops_.reserve(t_.gpu.size());
  points_.reserve(t_.gpu.size());
  for (uint32_t i = 0; i < t_.nodes.size(); ++i) {
    const Node& n = t_.nodes[i];
    if (is_range_lane(n.thread)) continue;  // annotations, not work
    if (is_cpu_kind(n.kind)) {
      intervals_.push_back({n.start_ns, n.end_ns, i, thread_lane(n.thread), false});
      continue;
    }
    const GpuDetail* d = t_.detail(n);
    GpuDetail none;
    if (!d) d = &none;
    if (n.kind == NodeKind::kSync) {
      bool marker = d->sync == SyncKind::kStreamWait || is_event_record(t_, n);
      if (!marker) {
        intervals_.push_back({n.start_ns, n.end_ns, i, thread_lane(n.thread), true});
        ++waits_;
        continue;
      }
      int64_t issue = d->api_start_ns ? d->api_start_ns : n.start_ns;
      ops_.push_back({issue, i, stream_lane(d->device, d->stream)});
      points_.push_back({issue, i, thread_lane(n.thread)});
      continue;
    }
    // Kernel, copy or memset.
    ops_.push_back(
        {d->api_start_ns ? d->api_start_ns : n.start_ns, i, stream_lane(d->device, d->stream)});
    if (d->api_start_ns) {
      points_.push_back({d->api_start_ns, i, thread_lane(n.thread)});
      bool blocking = n.kind != NodeKind::kKernel && d->api_end_ns >= n.end_ns;
      if (blocking) {
        intervals_.push_back({d->api_start_ns, d->api_end_ns, i, thread_lane(n.thread), true});
        ++waits_;
      }
    } else if (n.parent != kNoNode && is_cpu_kind(t_.nodes[n.parent].kind)) {
      // No API times (hand-made trace): the launching scope had run at least
      // until the kernel started, or until it ended.
      const Node& p = t_.nodes[n.parent];
      points_.push_back({std::clamp(n.start_ns, p.start_ns, p.end_ns), i, thread_lane(p.thread)});
    }
  }
}

uint32_t Builder::add_activity(uint32_t owner, uint32_t lane, int64_t start, int64_t dur) {
  auto id = static_cast<uint32_t>(g_.owner.size());
  g_.owner.push_back(owner);
  g_.lane.push_back(lane);
  g_.start.push_back(start);
  g_.duration.push_back(dur);
  if (owner != kNoNode) {
    if (first_[owner] == kNoNode) first_[owner] = id;
    last_[owner] = id;
  }
  return id;
}

// Emits [a, b) of `owner`'s self time, cut at every issue point inside it.
// A wait is never cut: nothing is issued from a blocked thread, so a launch
// time inside one (a hand-made trace's guess, the kernel's start) counts as
// issued before it.
void Builder::emit(int64_t a, int64_t b, uint32_t owner, uint32_t lane, bool wait,
                   uint32_t* wait_act) {
  while (next_point_ < points_end_ &&
         (points_[next_point_].time <= a || (wait && points_[next_point_].time < b)))
    issued_from_[next_point_++] = last_act_;
  if (!wait) {
    while (next_point_ < points_end_ && points_[next_point_].time < b) {
      int64_t p = points_[next_point_].time;
      uint32_t id = add_activity(owner, lane, a, p - a);
      if (last_act_ != kNoNode) edges_.emplace_back(last_act_, id);
      last_act_ = id;
      a = p;
      while (next_point_ < points_end_ && points_[next_point_].time == p)
        issued_from_[next_point_++] = last_act_;
    }
  }
  uint32_t id = add_activity(owner, lane, a, b - a);
  if (last_act_ != kNoNode) edges_.emplace_back(last_act_, id);
  last_act_ = id;
  if (wait && *wait_act == kNoNode) {
    *wait_act = id;
    wait_acts_.emplace_back(owner, id);
  }
}

// Untracked time [a, b) between a thread's scopes, where it was recorded:
// with capture windows, only the parts inside them (time between windows
// was not recorded, so nothing can be said of it).
void Builder::emit_untracked(int64_t a, int64_t b, uint32_t lane) {
  const std::vector<TimeRange>& windows = t_.diagnostics.capture_windows;
  if (windows.empty()) return emit(a, b, kNoNode, lane, false, nullptr);
  auto w = std::upper_bound(windows.begin(), windows.end(), a,
                            [](int64_t x, const TimeRange& r) { return x < r.end_ns; });
  for (; w != windows.end() && w->start_ns < b; ++w) {
    const int64_t lo = std::max(a, w->start_ns), hi = std::min(b, w->end_ns);
    if (lo < hi) emit(lo, hi, kNoNode, lane, false, nullptr);
  }
}

// One thread: a stack sweep over properly nested intervals (an interval that
// overruns its parent is clipped to it). The thread's timeline runs from its
// first scope, wait or launch to its last: untracked time fills the rest.
// A scope's first and last activities become the first and last inside it,
// its nested scopes' included, so a trace edge joins whole scopes.
void Builder::sweep_one(uint32_t lane, size_t ib, size_t ie, size_t pb, size_t pe) {
  struct Open {
    int64_t end;
    uint32_t node;
    bool wait;
    uint32_t wait_act;
    uint32_t acts_before;  // activities made before it opened
  };
  std::vector<Open> stack;
  next_point_ = pb;
  points_end_ = pe;
  last_act_ = kNoNode;
  int64_t cur = ib < ie ? intervals_[ib].start : points_[pb].time;
  if (pb < pe) cur = std::min(cur, points_[pb].time);
  auto advance_to = [&](int64_t t) {
    while (!stack.empty() && stack.back().end <= t) {
      Open& top = stack.back();
      if (top.end > cur) emit(cur, top.end, top.node, lane, top.wait, &top.wait_act);
      cur = std::max(cur, top.end);
      if (!top.wait && g_.size() > top.acts_before) {
        first_[top.node] = top.acts_before;
        last_[top.node] = static_cast<uint32_t>(g_.size() - 1);
      }
      stack.pop_back();
    }
    if (t <= cur) return;
    if (stack.empty()) {
      emit_untracked(cur, t, lane);  // untracked time between scopes
    } else {
      Open& top = stack.back();
      emit(cur, t, top.node, lane, top.wait, &top.wait_act);
    }
    cur = t;
  };
  for (size_t i = ib; i < ie; ++i) {
    const Interval& iv = intervals_[i];
    advance_to(iv.start);
    int64_t end = stack.empty() ? iv.end : std::min(iv.end, stack.back().end);
    stack.push_back({end, iv.node, iv.wait, kNoNode, static_cast<uint32_t>(g_.size())});
  }
  advance_to(stack.empty() ? cur : stack.front().end);
  if (pb < pe) advance_to(points_[pe - 1].time);  // launches after the last scope
  while (next_point_ < points_end_) issued_from_[next_point_++] = last_act_;
}

// Room for every activity and edge up front: 10^7-node traces make tens of
// millions of each, and regrowing would copy (and briefly double) them.
// Capacity that stays unused is never touched, so it costs no memory.
void Builder::reserve() {
  // A thread interval makes at most two pieces, an issue point one more.
  size_t acts = 2 * intervals_.size() + points_.size() + ops_.size() + g_.lanes.size();
  g_.owner.reserve(acts);
  g_.lane.reserve(acts);
  g_.start.reserve(acts);
  g_.duration.reserve(acts);
  // Program/issue order, launches, record -> stream wait, sources of host
  // waits (a few each), the trace's own edges.
  edges_.reserve(acts + points_.size() + ops_.size() + 4 * waits_ + t_.edges.size());
}

void Builder::sweep_threads() {
  size_t lanes = g_.lanes.size();
  group_by_lane(intervals_, lanes);
  group_by_lane(points_, lanes);
  issued_from_.assign(points_.size(), kNoNode);
  size_t ib = 0, pb = 0;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    size_t ie = ib, pe = pb;
    while (ie < intervals_.size() && intervals_[ie].lane == lane) ++ie;
    while (pe < points_.size() && points_[pe].lane == lane) ++pe;
    if (ie > ib || pe > pb) sweep_one(lane, ib, ie, pb, pe);  // a thread's lane (not a stream's)
    ib = ie;
    pb = pe;
  }
  std::vector<Interval>().swap(intervals_);
}

void Builder::build_streams() {
  first_stream_act_ = static_cast<uint32_t>(g_.size());
  group_by_lane(ops_, g_.lanes.size());
  lane_ops_.resize(g_.lanes.size());
  for (size_t i = 0; i < ops_.size(); ++i) {
    const StreamOp& op = ops_[i];
    const Node& n = t_.nodes[op.node];
    bool marker = n.kind == NodeKind::kSync;
    // Markers take no GPU time; their timestamps are the CPU call's.
    uint32_t id = add_activity(op.node, op.lane, marker ? op.issue : n.start_ns,
                               marker ? 0 : n.duration_ns());
    auto& lane = lane_ops_[op.lane];
    if (!lane.empty()) edges_.emplace_back(lane.back().second, id);
    lane.emplace_back(op.issue, id);
  }
  std::vector<StreamOp>().swap(ops_);
  // Launch edges: the CPU piece that ended at the issue point -> the operation.
  for (size_t i = 0; i < points_.size(); ++i) {
    if (issued_from_[i] == kNoNode) continue;
    // Streams are built after threads, so a node's last activity is its GPU
    // one (a blocking copy's host wait, emitted earlier, is its first).
    edges_.emplace_back(issued_from_[i], last_[points_[i].node]);
  }
  std::vector<IssuePoint>().swap(points_);
  std::vector<uint32_t>().swap(issued_from_);
}

// Latest op in `ops` issued at or before `t`, or kNoNode. `hint` is where
// the previous search on these ops ended: waits come in time order per
// thread, so searching outward from it (doubling steps) touches a few nearby
// entries instead of a cache-missing binary search over millions.
uint32_t latest_before(const std::vector<std::pair<int64_t, uint32_t>>& ops, int64_t t,
                       size_t& hint) {
  // First index whose issue time is after t, in [lo, hi).
  size_t lo = 0, hi = ops.size();
  size_t h = std::min(hint, ops.size());
  if (h < ops.size() && ops[h].first <= t) {  // answer at or after h: gallop up
    lo = h + 1;
    for (size_t step = 1; lo < hi; step *= 2) {
      size_t probe = std::min(hi, h + step);
      if (probe < hi && ops[probe].first <= t) {
        lo = probe + 1;
      } else {
        hi = probe;
        break;
      }
    }
  } else {  // answer before h: gallop down
    hi = h;
    for (size_t step = 1; lo < hi; step *= 2) {
      size_t probe = h >= step ? h - step : 0;
      if (ops[probe].first > t) {
        hi = probe;
        if (probe == 0) break;
      } else {
        lo = probe + 1;
        break;
      }
    }
  }
  auto it = std::upper_bound(
      ops.begin() + static_cast<std::ptrdiff_t>(lo), ops.begin() + static_cast<std::ptrdiff_t>(hi),
      t, [](int64_t v, const std::pair<int64_t, uint32_t>& e) { return v < e.first; });
  hint = static_cast<size_t>(it - ops.begin());
  return it == ops.begin() ? kNoNode : std::prev(it)->second;
}

// Host waits and stream waits get the GPU work they wait for as
// predecessors (their durations follow in shorten_waits).
void Builder::link_waits() {
  // Event records by event id, in issue order: one sorted array, not a list
  // per event (a 10^7-node trace records hundreds of thousands of events).
  struct Record {
    uint64_t event;
    int64_t issue;
    uint32_t act;
    bool operator<(const Record& o) const {
      return event != o.event ? event < o.event : issue != o.issue ? issue < o.issue : act < o.act;
    }
  };
  std::vector<Record> records, stream_waits;  // one pass over the ops collects both
  for (uint32_t l = 0; l < lane_ops_.size(); ++l)
    for (const auto& [issue, act] : lane_ops_[l]) {
      const Node& n = t_.nodes[g_.owner[act]];
      if (n.kind != NodeKind::kSync) continue;
      if (t_.detail(n)->sync == SyncKind::kStreamWait)
        stream_waits.push_back({t_.detail(n)->event, issue, act});
      else if (is_event_record(t_, n))
        records.push_back({t_.detail(n)->event, issue, act});
    }
  std::sort(records.begin(), records.end());
  // Latest record of `event` issued at or before `t`, or kNoNode.
  auto record_before = [&](uint64_t event, int64_t t) {
    auto it = std::upper_bound(records.begin(), records.end(), Record{event, t, kNoNode});
    return it == records.begin() || std::prev(it)->event != event ? kNoNode : std::prev(it)->act;
  };
  // Stream waits: the record they name -> the wait marker.
  for (const Record& w : stream_waits) {
    uint32_t rec = record_before(w.event, w.issue);
    if (rec != kNoNode) edges_.emplace_back(rec, w.act);
  }
  std::vector<uint32_t> sources;
  std::vector<size_t> hints(lane_ops_.size(), 0);  // per stream lane, for latest_before
  for (const auto& [node, act] : wait_acts_) {
    const Node& n = t_.nodes[node];
    const GpuDetail* d = t_.detail(n);
    const int64_t wait_start = g_.start[act];
    sources.clear();
    if (n.kind != NodeKind::kSync) {
      sources.push_back(last_[node]);  // blocking copy: its GPU side
    } else if (d && d->sync == SyncKind::kEvent) {
      sources.push_back(record_before(d->event, wait_start));
    } else if (d && d->sync == SyncKind::kStream) {
      auto it = stream_lanes_.find((static_cast<uint64_t>(d->device) << 32) | d->stream);
      if (it != stream_lanes_.end())
        sources.push_back(latest_before(lane_ops_[it->second], wait_start, hints[it->second]));
    } else if (d && (d->sync == SyncKind::kContext || d->sync == SyncKind::kDevice)) {
      for (uint32_t l = 0; l < g_.lanes.size(); ++l)
        if (g_.lanes[l].kind == Lane::Kind::kStream && g_.lanes[l].device == d->device)
          sources.push_back(latest_before(lane_ops_[l], wait_start, hints[l]));
    }
    for (uint32_t s : sources)
      if (s != kNoNode) edges_.emplace_back(s, act);
  }
}

void Builder::link_trace_edges() {
  for (const Edge& e : t_.edges) {
    if (e.type != EdgeType::kSequence && e.type != EdgeType::kDependsOn) continue;
    uint32_t from = last_[e.src], to = first_[e.dst];
    if (from == kNoNode || to == kNoNode) {
      ++g_.ignored_edges;
      continue;
    }
    edges_.emplace_back(from, to);
  }
}

// Kahn's algorithm over the edge list; iterative, so depth is no concern.
void Builder::order() {
  const size_t n = g_.size();
  std::vector<uint32_t> succ_begin(n + 1, 0);
  g_.pred_begin.assign(n + 1, 0);
  for (const auto& [u, v] : edges_) {
    ++succ_begin[u + 1];
    ++g_.pred_begin[v + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    succ_begin[i + 1] += succ_begin[i];
    g_.pred_begin[i + 1] += g_.pred_begin[i];
  }
  std::vector<uint32_t> succ(edges_.size());
  g_.preds.resize(edges_.size());
  {
    std::vector<uint32_t> sfill(succ_begin.begin(), succ_begin.end() - 1);
    std::vector<uint32_t> pfill(g_.pred_begin.begin(), g_.pred_begin.end() - 1);
    for (const auto& [u, v] : edges_) {
      succ[sfill[u]++] = v;
      g_.preds[pfill[v]++] = u;
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>>().swap(edges_);
  std::vector<uint32_t> indegree(n);
  g_.order.reserve(n);
  for (size_t v = 0; v < n; ++v) {
    indegree[v] = g_.pred_begin[v + 1] - g_.pred_begin[v];
    if (indegree[v] == 0) g_.order.push_back(static_cast<uint32_t>(v));
  }
  for (size_t head = 0; head < g_.order.size(); ++head) {
    uint32_t u = g_.order[head];
    for (uint32_t k = succ_begin[u]; k < succ_begin[u + 1]; ++k)
      if (--indegree[succ[k]] == 0) g_.order.push_back(succ[k]);
  }
  if (g_.order.size() == n) return;
  // Every unordered vertex has an unordered predecessor; walking back along
  // them must revisit a vertex, and that one lies on a cycle.
  uint32_t v = 0;
  while (indegree[v] == 0) ++v;
  std::vector<uint8_t> seen(n, 0);
  while (!seen[v]) {
    seen[v] = 1;
    for (uint32_t k = g_.pred_begin[v]; k < g_.pred_begin[v + 1]; ++k)
      if (indegree[g_.preds[k]] != 0) {
        v = g_.preds[k];
        break;
      }
  }
  uint32_t node = g_.owner[v];
  std::string what = node == kNoNode ? std::string("untracked CPU time")
                                     : "node " + std::to_string(node) + " '" +
                                           std::string(t_.name(t_.nodes[node])) + "'";
  throw GraphError(
      "dependency cycle (sequence/depends_on edges contradict the recorded order) "
      "through " +
      what);
}

// Origin, end and the unrecorded stretches, from the activities' measured
// times (before shorten_waits: a wait's measured end is its call's return).
void Builder::measure_span() {
  const size_t n = g_.size();
  g_.origin = g_.measured_end = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || g_.start[i] < g_.origin) g_.origin = g_.start[i];
    if (i == 0 || g_.start[i] + g_.duration[i] > g_.measured_end)
      g_.measured_end = g_.start[i] + g_.duration[i];
  }
  const std::vector<TimeRange>& windows = t_.diagnostics.capture_windows;
  if (n == 0 || windows.empty()) return;
  const int64_t a = g_.origin, b = g_.measured_end;
  std::vector<TimeRange> outside;  // [a, b) less the windows, in order
  int64_t at = a;
  for (const TimeRange& w : windows) {
    if (w.start_ns > at) outside.push_back({at, std::min(w.start_ns, b)});
    at = std::max(at, w.end_ns);
    if (at >= b) break;
  }
  if (at < b) outside.push_back({at, b});
  // A stretch with some activity in it (as a hand-made trace may have) was
  // recorded after all: it stays.
  std::vector<uint8_t> busy(outside.size(), 0);
  for (size_t v = 0; v < n; ++v) {
    const int64_t s = g_.start[v], e = g_.start[v] + g_.duration[v];
    auto o = std::upper_bound(outside.begin(), outside.end(), s,
                              [](int64_t x, const TimeRange& r) { return x < r.end_ns; });
    for (; o != outside.end() && o->start_ns < e; ++o) busy[o - outside.begin()] = 1;
  }
  int64_t before = 0;
  for (size_t i = 0; i < outside.size(); ++i) {
    if (busy[i] || outside[i].end_ns <= outside[i].start_ns) continue;
    g_.unrecorded.push_back(outside[i]);
    g_.unrecorded_before.push_back(before);
    before += outside[i].end_ns - outside[i].start_ns;
  }
}

// A host wait's own part is what is left of it after the GPU work it waits
// for had finished, as measured: speeding that work up shortens the wait.
// When a stream activity's work was done: its own end, or for a marker its
// issue, and no earlier than the work before it on the stream, or the
// record it waits for (its stream predecessors). One pass in topological
// order over the stream activities.
void Builder::shorten_waits() {
  const auto is_stream = [&](uint32_t v) { return v >= first_stream_act_; };
  std::vector<int64_t> done(g_.size() - first_stream_act_);
  for (uint32_t v : g_.order) {
    if (!is_stream(v)) continue;
    int64_t at = g_.start[v] + g_.duration[v];
    for (uint32_t k = g_.pred_begin[v]; k < g_.pred_begin[v + 1]; ++k)
      if (is_stream(g_.preds[k])) at = std::max(at, done[g_.preds[k] - first_stream_act_]);
    done[v - first_stream_act_] = at;
  }
  for (const auto& [node, act] : wait_acts_) {
    int64_t gpu_done = g_.start[act];
    for (uint32_t k = g_.pred_begin[act]; k < g_.pred_begin[act + 1]; ++k)
      if (is_stream(g_.preds[k]))
        gpu_done = std::max(gpu_done, done[g_.preds[k] - first_stream_act_]);
    g_.duration[act] = std::max<int64_t>(0, g_.start[act] + g_.duration[act] - gpu_done);
  }
}

DependencyGraph Builder::build() {
  classify();
  reserve();
  sweep_threads();
  build_streams();
  link_waits();
  link_trace_edges();
  std::vector<std::vector<std::pair<int64_t, uint32_t>>>().swap(lane_ops_);
  order();
  measure_span();
  shorten_waits();
  return std::move(g_);
}

}  // namespace

bool is_event_record(const Trace& trace, const Node& node) {
  if (node.kind != NodeKind::kSync) return false;
  const GpuDetail* d = trace.detail(node);
  return d && d->sync == SyncKind::kEvent && contains_record(trace.name(node));
}

DependencyGraph build_dependency_graph(const Trace& trace) { return Builder(trace).build(); }

int64_t DependencyGraph::recorded_offset(int64_t t) const {
  // The stretches that end at or before t count whole, one that holds t in part.
  auto it = std::upper_bound(unrecorded.begin(), unrecorded.end(), t,
                             [](int64_t x, const TimeRange& r) { return x < r.end_ns; });
  const size_t i = static_cast<size_t>(it - unrecorded.begin());
  int64_t left_out =
      i < unrecorded_before.size()
          ? unrecorded_before[i]
          : (unrecorded.empty() ? 0
                                : unrecorded_before.back() + unrecorded.back().end_ns -
                                      unrecorded.back().start_ns);
  if (it != unrecorded.end() && it->start_ns < t) left_out += t - it->start_ns;
  return t - origin - left_out;
}

}  // namespace brickprof
