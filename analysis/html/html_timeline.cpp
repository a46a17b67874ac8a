// Builds the HTML page's timeline (see html_timeline.h): lanes, one slice per
// node and per range of GPU work a host node launched, rows packed.
#include "analysis/html/html_timeline.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "analysis/html/html_timeline_sort.h"
#include "analysis/html/flat_index.h"

namespace brickprof {
namespace {

constexpr uint32_t kUnset = kNoNode;
constexpr int64_t kNoReplay = INT64_MIN;

uint64_t pair_key(uint32_t a, uint32_t b) { return uint64_t{a} << 32 | b; }

// Host threads in the order the trace lists them, then by id; and their names.
class ThreadOrder {
 public:
  explicit ThreadOrder(const Trace& t) {
    for (const ThreadInfo& th : t.threads) {
      auto [it, inserted] = listed_.try_emplace(th.tid, Listed{listed_.size(), th.name});
      if (!inserted) it->second.name = th.name;  // a tid listed twice: its last name
    }
  }
  std::pair<size_t, uint32_t> key(uint32_t tid) const {
    auto it = listed_.find(tid);
    return {it == listed_.end() ? listed_.size() : it->second.index, tid};
  }
  std::string_view name(uint32_t tid) const {
    auto it = listed_.find(tid);
    return it == listed_.end() ? std::string_view() : it->second.name;
  }

 private:
  struct Listed {
    size_t index;
    std::string_view name;
  };
  std::unordered_map<uint32_t, Listed> listed_;
};

// For each host node (not GPU work), how many layers, bricks and scopes
// enclose it: on its own thread only (`same_thread`: its row on the
// timeline), or along the whole parent chain. Memoised, no recursion: a
// nest may be 10^5 deep.
std::vector<uint32_t> nest_depths(const Trace& t, bool same_thread) {
  const size_t n = t.nodes.size();
  std::vector<uint32_t> depth(n, kUnset);
  std::vector<uint32_t> chain;
  for (uint32_t i = 0; i < n; ++i) {
    if (on_stream(t.nodes[i].kind) || depth[i] != kUnset) continue;
    chain.clear();
    uint32_t cur = i;
    while (cur != kNoNode && depth[cur] == kUnset) {
      chain.push_back(cur);
      const Node& node = t.nodes[cur];
      const uint32_t p = node.parent;
      const bool follow = p != kNoNode && is_cpu_kind(t.nodes[p].kind) &&
                          (!same_thread || t.nodes[p].thread == node.thread);
      cur = follow ? p : kNoNode;
    }
    uint32_t d = cur == kNoNode ? 0 : depth[cur] + 1;
    for (size_t k = chain.size(); k-- > 0;) depth[chain[k]] = d++;
  }
  return depth;
}

// The span of the GPU work one host node launched on one device, directly or
// beneath it; work replayed from a CUDA graph gives one span per graph
// launch (told apart by the launch call's time).
struct RangeSpan {
  uint32_t node = 0;
  uint32_t device = 0;
  int64_t replay = kNoReplay;
  int64_t start = 0;
  int64_t end = 0;
  // The first operation under it in trace order: with the nesting, the
  // order in which spans that tie on time are packed.
  uint32_t first_op = 0;
};

struct RangeKey {
  uint32_t node;
  uint32_t device;
  int64_t replay;
  bool operator==(const RangeKey&) const = default;
};

struct RangeKeyHash {
  size_t operator()(const RangeKey& k) const {
    uint64_t h = pair_key(k.node, k.device) * 0x9e3779b97f4a7c15ull;
    h ^= static_cast<uint64_t>(k.replay);
    h *= 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
};

// Each operation's span goes to its parent, then each parent's spans to its
// own parent, deepest first: linear in the spans, however deep the nest.
std::vector<RangeSpan> gpu_ranges(const Trace& t, const std::vector<uint32_t>& chain_depth) {
  FlatIndex<RangeKey, RangeKeyHash> index;  // ids are indices of spans
  std::vector<RangeSpan> spans;
  std::vector<std::vector<uint32_t>> by_depth;
  auto add = [&](const RangeSpan& r) {
    auto [id, inserted] = index.insert(RangeKey{r.node, r.device, r.replay});
    if (inserted) {
      spans.push_back(r);
      const uint32_t d = chain_depth[r.node];
      if (by_depth.size() <= d) by_depth.resize(d + 1);
      by_depth[d].push_back(id);
      return;
    }
    RangeSpan& s = spans[id];
    s.start = std::min(s.start, r.start);
    s.end = std::max(s.end, r.end);
    s.first_op = std::min(s.first_op, r.first_op);
  };
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (!on_stream(n.kind) || n.parent == kNoNode || !is_cpu_kind(t.nodes[n.parent].kind)) continue;
    const GpuDetail* g = t.detail(n);
    RangeSpan r;
    r.node = n.parent;
    r.device = g ? g->device : 0;
    if (g && g->graph_node != 0 && g->api_start_ns != 0) r.replay = g->api_start_ns;
    r.start = n.start_ns;
    r.end = n.end_ns;
    r.first_op = i;
    add(r);
  }
  for (size_t d = by_depth.size(); d-- > 1;) {
    for (size_t k = 0; k < by_depth[d].size(); ++k) {
      RangeSpan up = spans[by_depth[d][k]];
      up.node = t.nodes[up.node].parent;  // a layer, brick or scope: d > 0
      add(up);
    }
  }
  std::sort(spans.begin(), spans.end(), [&](const RangeSpan& a, const RangeSpan& b) {
    if (a.first_op != b.first_op) return a.first_op < b.first_op;
    return chain_depth[a.node] > chain_depth[b.node];  // inner first
  });
  return spans;
}

// Rows for a lane whose slices need not nest (range lanes, streams), given
// lane after lane by start, longest first: each slice in the lowest free row
// below the slice that encloses it, so no two slices of a row overlap.
void pack_rows(std::vector<TimelineSlice>& slices) {
  struct Open {
    int64_t end;
    uint32_t row;
  };
  std::vector<Open> stack;
  std::vector<int64_t> row_end;
  uint32_t lane = kNoNode;
  for (TimelineSlice& s : slices) {
    if (s.lane != lane) {
      lane = s.lane;
      stack.clear();
      row_end.clear();
    }
    while (!stack.empty() && stack.back().end <= s.start) stack.pop_back();
    uint32_t row = 0;
    for (size_t k = stack.size(); k-- > 0;) {
      if (stack[k].end >= s.end()) {
        row = stack[k].row + 1;
        break;
      }
    }
    while (row < row_end.size() && row_end[row] > s.start) ++row;
    if (row == row_end.size())
      row_end.push_back(s.end());
    else
      row_end[row] = s.end();
    stack.push_back({s.end(), row});
    s.depth = row;
  }
}

// The lanes in display order and where each thread, range and stream goes.
struct LaneIndex {
  std::vector<TimelineLane> lanes;
  std::unordered_map<uint32_t, uint32_t> thread;  // tid
  std::unordered_map<uint64_t, uint32_t> range;   // (device, tid)
  std::unordered_map<uint64_t, uint32_t> stream;  // (device, stream)
};

LaneIndex make_lanes(const Trace& t, const std::vector<RangeSpan>& spans) {
  const ThreadOrder order(t);
  auto by_order = [&](uint32_t a, uint32_t b) { return order.key(a) < order.key(b); };
  std::vector<uint32_t> threads;
  std::vector<uint64_t> streams, ranges;  // (device, stream), (device, tid)
  // Neighbours mostly share a lane: only changes are kept, then sorted out.
  auto add_new = [](auto& list, auto key) {
    if (list.empty() || list.back() != key) list.push_back(key);
  };
  for (const Node& n : t.nodes) {
    if (!on_stream(n.kind)) {
      add_new(threads, n.thread);
    } else {
      const GpuDetail* g = t.detail(n);
      add_new(streams, g ? pair_key(g->device, g->stream) : 0);
    }
  }
  for (const RangeSpan& r : spans) add_new(ranges, pair_key(r.device, t.nodes[r.node].thread));
  for (auto* v : {&streams, &ranges}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  std::sort(threads.begin(), threads.end(), by_order);
  // Range lanes of one device: threads in the same order as their own lanes.
  std::stable_sort(ranges.begin(), ranges.end(), [&](uint64_t a, uint64_t b) {
    if (a >> 32 != b >> 32) return a >> 32 < b >> 32;
    return by_order(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
  });

  LaneIndex li;
  auto add = [&](TimelineLane lane) {
    li.lanes.push_back(std::move(lane));
    return static_cast<uint32_t>(li.lanes.size() - 1);
  };
  for (uint32_t tid : threads) {
    TimelineLane lane;
    lane.kind = TimelineLane::Kind::kThread;
    lane.tid = tid;
    lane.name = thread_title(tid, order.name(tid));
    li.thread.emplace(tid, add(std::move(lane)));
  }
  size_t r = 0, s = 0;
  while (s < streams.size()) {
    const auto device = static_cast<uint32_t>(streams[s] >> 32);
    for (; r < ranges.size() && ranges[r] >> 32 == device; ++r) {
      TimelineLane lane;
      lane.kind = TimelineLane::Kind::kRange;
      lane.device = device;
      lane.tid = static_cast<uint32_t>(ranges[r]);
      lane.name = "GPU " + std::to_string(device) + ": thread " + std::to_string(lane.tid);
      li.range.emplace(ranges[r], add(std::move(lane)));
    }
    for (; s < streams.size() && streams[s] >> 32 == device; ++s) {
      TimelineLane lane;
      lane.kind = TimelineLane::Kind::kStream;
      lane.device = device;
      lane.stream = static_cast<uint32_t>(streams[s]);
      lane.name = "GPU " + std::to_string(device) + ": stream " + std::to_string(lane.stream);
      li.stream.emplace(streams[s], add(std::move(lane)));
    }
  }
  return li;
}

}  // namespace

HtmlTimeline build_html_timeline(const Trace& t, size_t max_slices) {
  HtmlTimeline tl;
  if (!t.nodes.empty()) {
    tl.t0_ns = t.nodes[0].start_ns;
    int64_t end = t.nodes[0].end_ns;
    for (const Node& n : t.nodes) {
      tl.t0_ns = std::min(tl.t0_ns, n.start_ns);
      end = std::max(end, n.end_ns);
    }
    tl.span_ns = end - tl.t0_ns;
  }
  const std::vector<uint32_t> depth = nest_depths(t, true);
  const std::vector<RangeSpan> spans = gpu_ranges(t, nest_depths(t, false));
  LaneIndex li = make_lanes(t, spans);

  // Host slices nest by construction; GPU work and ranges get packed rows.
  std::vector<TimelineSlice> host, packed;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    TimelineSlice s;
    s.start = n.start_ns - tl.t0_ns;
    s.dur = n.duration_ns();
    s.node = i;
    if (on_stream(n.kind)) {
      const GpuDetail* g = t.detail(n);
      s.lane = li.stream.at(g ? pair_key(g->device, g->stream) : 0);
      packed.push_back(s);
    } else {
      s.lane = li.thread.at(n.thread);
      s.depth = depth[i];
      s.parent = n.parent;
      host.push_back(s);
    }
  }
  for (const RangeSpan& r : spans) {
    TimelineSlice s;
    s.start = r.start - tl.t0_ns;
    s.dur = r.end - r.start;
    s.node = r.node;
    s.lane = li.range.at(pair_key(r.device, t.nodes[r.node].thread));
    packed.push_back(s);
  }
  sort_within_lanes(packed, li.lanes.size(), [](const TimelineSlice& a, const TimelineSlice& b) {
    return a.start != b.start ? a.start < b.start : a.dur > b.dur;
  });
  pack_rows(packed);
  host.insert(host.end(), packed.begin(), packed.end());
  packed = {};
  sort_within_lanes(host, li.lanes.size(), by_start_then_row);
  tl.slices = std::move(host);
  tl.lanes = std::move(li.lanes);

  reduce_timeline(tl, max_slices);
  for (const TimelineSlice& s : tl.slices) tl.lanes[s.lane].count++;
  add_timeline_flows(t, tl);
  return tl;
}

}  // namespace brickprof
