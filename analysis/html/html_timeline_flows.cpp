// The HTML timeline's launch flows: from the innermost host slice open on
// the launching thread at the launch call (for a replayed CUDA graph, its
// graph launch; without a call time, at the start of the operation's
// parent) to the operation's slice. One sweep per thread.
#include <algorithm>
#include <unordered_map>

#include "analysis/html/html_timeline.h"

namespace brickprof {
namespace {

struct Query {
  int64_t when = 0;  // where on the thread to look
  uint32_t to = 0;   // the operation's slice
  int64_t at = -1;   // the call's start, -1 if unknown
};

}  // namespace

void add_timeline_flows(const Trace& t, HtmlTimeline& tl) {
  std::unordered_map<uint32_t, uint32_t> thread_lane;  // tid -> lane
  for (uint32_t l = 0; l < tl.lanes.size(); ++l)
    if (tl.lanes[l].kind == TimelineLane::Kind::kThread) thread_lane.emplace(tl.lanes[l].tid, l);
  // Per thread lane: its recorded slices (by start, then depth) and the
  // launches to place on it. A merged slice launched nothing of its own.
  std::vector<std::vector<uint32_t>> opened(tl.lanes.size());
  std::vector<std::vector<Query>> queries(tl.lanes.size());
  for (uint32_t i = 0; i < tl.slices.size(); ++i) {
    const TimelineSlice& s = tl.slices[i];
    if (s.merged > 1) continue;
    const TimelineLane::Kind kind = tl.lanes[s.lane].kind;
    if (kind == TimelineLane::Kind::kThread) {
      opened[s.lane].push_back(i);
      continue;
    }
    if (kind != TimelineLane::Kind::kStream) continue;
    const Node& op = t.nodes[s.node];
    const GpuDetail* g = t.detail(op);
    Query q;
    q.to = i;
    q.at = g && g->api_start_ns != 0 ? g->api_start_ns - tl.t0_ns : -1;
    if (q.at >= 0) {
      q.when = q.at;
    } else if (op.parent != kNoNode) {
      q.when = t.nodes[op.parent].start_ns - tl.t0_ns;
    } else {
      continue;  // nothing says when it was launched
    }
    auto lane = thread_lane.find(op.thread);
    if (lane != thread_lane.end()) queries[lane->second].push_back(q);
  }
  for (uint32_t lane = 0; lane < tl.lanes.size(); ++lane) {
    std::vector<Query>& qs = queries[lane];
    std::sort(qs.begin(), qs.end(), [](const Query& a, const Query& b) {
      return a.when != b.when ? a.when < b.when : a.to < b.to;
    });
    // The stack of slices open at `when`: the innermost on top.
    std::vector<uint32_t> stack;
    size_t j = 0;
    const std::vector<uint32_t>& slices = opened[lane];
    for (const Query& q : qs) {
      while (j < slices.size() && tl.slices[slices[j]].start <= q.when) {
        const int64_t start = tl.slices[slices[j]].start;
        while (!stack.empty() && tl.slices[stack.back()].end() <= start) stack.pop_back();
        stack.push_back(slices[j++]);
      }
      while (!stack.empty() && tl.slices[stack.back()].end() < q.when) stack.pop_back();
      if (!stack.empty()) tl.flows.push_back({stack.back(), q.to, q.at});
    }
  }
  std::sort(tl.flows.begin(), tl.flows.end(),
            [](const TimelineFlow& a, const TimelineFlow& b) { return a.to < b.to; });
}

}  // namespace brickprof
