// Cross-rank critical path and what-if (see rank_path.h).
#include "analysis/analyses/rank_path.h"

#include <algorithm>
#include <numeric>

namespace brickprof {
namespace {

// One blocking collective call in its rank's chain.
struct Link {
  uint32_t call = 0;           // CollectiveReport::calls
  uint32_t instance = 0;       // CollectiveReport::instances
  uint32_t prev = UINT32_MAX;  // the rank's previous link
  int64_t segment_ns = 0;      // own work before arriving
  int64_t transfer_ns = 0;     // the call after its release
};

struct Chains {
  std::vector<Link> links;                // by arrival
  std::vector<uint32_t> last;             // per rank: its last link
  std::vector<int64_t> start, end, tail;  // per rank
  std::vector<uint32_t> link_of_call;     // call -> link
  // Per instance, what a replay starts from for the latest arrival among
  // its calls: the measured arrival of those without a link, 0 for those
  // with one (not replayed yet). A replay raises it as it replays the
  // links, so a call that waits for everyone finds its release in one
  // look, not a pass over the instance's calls (which made each replay
  // quadratic in the ranks).
  std::vector<int64_t> latest_before_replay;
};

// The calls whose arrivals release `call` (its op's wait pattern), itself
// among them.
template <typename Visit>
void each_dependency(const CollectiveReport& r, const CollectiveInstance& inst,
                     const CollectiveCall& call, Visit visit) {
  const CollectiveCall* calls = r.calls.data() + inst.first_call;
  const uint32_t self = static_cast<uint32_t>(&call - r.calls.data());
  visit(self);
  for (uint32_t j = 0; j < inst.call_count; ++j) {
    const CollectiveCall& other = calls[j];
    bool waits_for = false;
    switch (wait_pattern(inst.op)) {
      case WaitPattern::kAllToAll:
        waits_for = true;
        break;
      case WaitPattern::kOneToAll:
        waits_for = other.comm_rank == inst.root;
        break;
      case WaitPattern::kAllToOne:
        waits_for = call.comm_rank == inst.root;
        break;
      case WaitPattern::kPrefix:
        waits_for = other.comm_rank < call.comm_rank;
        break;
      case WaitPattern::kNone:
        break;
    }
    if (waits_for) visit(inst.first_call + j);
  }
}

Chains build_chains(const std::vector<RankSpan>& spans, const CollectiveReport& r) {
  Chains c;
  const size_t ranks = r.ranks.ranks.size();
  c.start.assign(ranks, INT64_MAX);
  c.end.assign(ranks, INT64_MIN);
  for (uint32_t rank = 0; rank < ranks && rank < spans.size(); ++rank) {
    c.start[rank] = spans[rank].start_ns;
    c.end[rank] = spans[rank].end_ns;
  }
  std::vector<uint32_t> instance_of(r.calls.size(), UINT32_MAX);
  for (uint32_t k = 0; k < r.instances.size(); ++k)
    for (uint32_t j = 0; j < r.instances[k].call_count; ++j)
      instance_of[r.instances[k].first_call + j] = k;
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < r.calls.size(); ++i)
    if (r.calls[i].rank < ranks && instance_of[i] != UINT32_MAX &&
        wait_pattern(r.instances[instance_of[i]].op) != WaitPattern::kNone)
      order.push_back(i);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return r.calls[a].arrival_ns < r.calls[b].arrival_ns; });
  c.last.assign(ranks, UINT32_MAX);
  c.link_of_call.assign(r.calls.size(), UINT32_MAX);
  for (uint32_t i : order) {
    const CollectiveCall& call = r.calls[i];
    Link link;
    link.call = i;
    link.instance = instance_of[i];
    link.prev = c.last[call.rank];
    const int64_t from =
        link.prev == UINT32_MAX ? c.start[call.rank] : r.calls[c.links[link.prev].call].end_ns;
    link.segment_ns = std::max<int64_t>(0, call.arrival_ns - from);
    link.transfer_ns = std::max<int64_t>(0, call.end_ns - call.arrival_ns - call.wait_ns);
    c.last[call.rank] = static_cast<uint32_t>(c.links.size());
    c.link_of_call[i] = static_cast<uint32_t>(c.links.size());
    c.links.push_back(link);
  }
  c.latest_before_replay.assign(r.instances.size(), INT64_MIN);
  for (uint32_t k = 0; k < r.instances.size(); ++k)
    for (uint32_t j = 0; j < r.instances[k].call_count; ++j) {
      const uint32_t call = r.instances[k].first_call + j;
      const int64_t known = c.link_of_call[call] == UINT32_MAX ? r.calls[call].arrival_ns : 0;
      c.latest_before_replay[k] = std::max(c.latest_before_replay[k], known);
    }
  c.tail.assign(ranks, 0);
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    if (c.start[rank] == INT64_MAX) continue;
    const int64_t from =
        c.last[rank] == UINT32_MAX ? c.start[rank] : r.calls[c.links[c.last[rank]].call].end_ns;
    c.tail[rank] = std::max<int64_t>(0, c.end[rank] - from);
  }
  return c;
}

// Replays the chains with each rank's segments scaled; the end of the last
// rank. `release`, if given, receives each link's release time.
int64_t replay(const CollectiveReport& r, const Chains& c, const std::vector<double>& scale,
               std::vector<int64_t>* arrival_out = nullptr) {
  const size_t n = c.links.size();
  std::vector<int64_t> arrival(n, 0), exit(n, 0);
  std::vector<bool> done(n, false);
  auto arrival_of_call = [&](uint32_t call) {
    const uint32_t l = c.link_of_call[call];
    return l == UINT32_MAX ? r.calls[call].arrival_ns : arrival[l];
  };
  // The latest arrival among each instance's calls as replayed so far (a
  // link not replayed yet counts as 0, as arrival_of_call has it; replayed
  // arrivals are never negative, so that 0 changes no maximum it is in).
  std::vector<int64_t> latest = c.latest_before_replay;
  auto finish = [&](uint32_t l) {
    if (done[l]) return;
    const Link& link = c.links[l];
    const CollectiveInstance& inst = r.instances[link.instance];
    const CollectiveCall& call = r.calls[link.call];
    int64_t release = arrival[l];
    const WaitPattern pattern = wait_pattern(inst.op);
    if (pattern == WaitPattern::kAllToAll ||
        (pattern == WaitPattern::kAllToOne && call.comm_rank == inst.root))
      release = std::max(release, latest[link.instance]);  // every call of the instance
    else
      each_dependency(r, inst, call,
                      [&](uint32_t dep) { release = std::max(release, arrival_of_call(dep)); });
    exit[l] = release + link.transfer_ns;
    done[l] = true;
  };
  auto scaled = [&](uint32_t rank, int64_t ns) {
    return static_cast<int64_t>(static_cast<double>(ns) * scale[rank]);
  };
  for (uint32_t l = 0; l < n; ++l) {
    const Link& link = c.links[l];
    const uint32_t rank = r.calls[link.call].rank;
    if (link.prev != UINT32_MAX) finish(link.prev);
    const int64_t from = link.prev == UINT32_MAX ? c.start[rank] : exit[link.prev];
    arrival[l] = from + scaled(rank, link.segment_ns);
    latest[link.instance] = std::max(latest[link.instance], arrival[l]);
  }
  int64_t end = INT64_MIN;
  for (uint32_t rank = 0; rank < c.last.size(); ++rank) {
    if (c.start[rank] == INT64_MAX) continue;
    int64_t from = c.start[rank];
    if (c.last[rank] != UINT32_MAX) {
      finish(c.last[rank]);
      from = exit[c.last[rank]];
    }
    end = std::max(end, from + scaled(rank, c.tail[rank]));
  }
  if (arrival_out) *arrival_out = std::move(arrival);
  return end;
}

}  // namespace

std::vector<RankSpan> rank_spans(const Trace& t, const RankIndex& ranks) {
  std::vector<RankSpan> spans(ranks.ranks.size());
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const uint32_t rank = ranks.of_node[i];
    if (rank >= spans.size() || is_range_lane(t.nodes[i].thread)) continue;
    spans[rank].start_ns = std::min(spans[rank].start_ns, t.nodes[i].start_ns);
    spans[rank].end_ns = std::max(spans[rank].end_ns, t.nodes[i].end_ns);
  }
  return spans;
}

RankPathReport rank_critical_path(const Trace& t, const CollectiveReport& r) {
  return rank_critical_path(rank_spans(t, r.ranks), r);
}

RankPathReport rank_critical_path(const std::vector<RankSpan>& spans, const CollectiveReport& r) {
  RankPathReport out;
  out.ranks = r.ranks;
  const Chains c = build_chains(spans, r);
  const size_t ranks = r.ranks.ranks.size();
  out.collectives = c.links.size();
  out.start_ns = INT64_MAX;
  out.measured_end_ns = INT64_MIN;
  uint32_t last_rank = kNoRank;
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    if (c.start[rank] == INT64_MAX) continue;
    out.start_ns = std::min(out.start_ns, c.start[rank]);
    if (c.end[rank] > out.measured_end_ns) {
      out.measured_end_ns = c.end[rank];
      last_rank = rank;
    }
  }
  if (last_rank == kNoRank) {
    out.start_ns = out.measured_end_ns = out.modelled_end_ns = 0;
    return out;
  }
  const std::vector<double> ones(ranks, 1.0);
  out.modelled_end_ns = replay(r, c, ones);

  // The path, backwards from the rank that ends last.
  out.shares.resize(ranks);
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    out.shares[rank].rank = rank;
    out.shares[rank].work_ns = c.tail[rank];
  }
  for (const Link& link : c.links) out.shares[r.calls[link.call].rank].work_ns += link.segment_ns;
  uint32_t rank = last_rank;
  int64_t at = c.end[rank];
  uint32_t link = c.last[rank];
  std::vector<RankPathStep> path;
  for (size_t guard = 0; guard <= 2 * c.links.size() + 1; ++guard) {
    const int64_t own_from =
        link == UINT32_MAX ? c.start[rank] : r.calls[c.links[link].call].end_ns;
    if (at > own_from) path.push_back({rank, false, UINT32_MAX, own_from, at});
    if (link == UINT32_MAX) break;
    const Link& l = c.links[link];
    const CollectiveCall& call = r.calls[l.call];
    const int64_t release = call.arrival_ns + call.wait_ns;
    if (call.end_ns > release) path.push_back({rank, true, l.instance, release, call.end_ns});
    // Waited: the path goes on in the rank whose arrival released it.
    uint32_t next = l.call;
    if (call.wait_ns > 0) {
      int64_t latest = INT64_MIN;
      each_dependency(r, r.instances[l.instance], call, [&](uint32_t dep) {
        if (r.calls[dep].arrival_ns > latest && c.link_of_call[dep] != UINT32_MAX) {
          latest = r.calls[dep].arrival_ns;
          next = dep;
        }
      });
    }
    rank = r.calls[next].rank;
    at = r.calls[next].arrival_ns;
    link = c.links[c.link_of_call[next]].prev;
  }
  std::reverse(path.begin(), path.end());
  for (const RankPathStep& s : path) out.shares[s.rank].on_path_ns += s.end_ns - s.start_ns;
  out.path = std::move(path);

  // What-if: each rank above the median total work, scaled down to it.
  std::vector<int64_t> totals;
  for (uint32_t k = 0; k < ranks; ++k)
    if (c.start[k] != INT64_MAX) totals.push_back(out.shares[k].work_ns);
  if (totals.size() > 1) {
    std::vector<int64_t> sorted = totals;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>((sorted.size() - 1) / 2),
                     sorted.end());
    const int64_t median = sorted[(sorted.size() - 1) / 2];
    for (uint32_t k = 0; k < ranks; ++k) {
      if (c.start[k] == INT64_MAX || out.shares[k].work_ns <= median) continue;
      std::vector<double> scale = ones;
      scale[k] = static_cast<double>(median) / static_cast<double>(out.shares[k].work_ns);
      RankWhatIf w{k, scale[k], out.modelled_end_ns - replay(r, c, scale)};
      out.what_ifs.push_back(w);
    }
    std::sort(out.what_ifs.begin(), out.what_ifs.end(),
              [](const RankWhatIf& a, const RankWhatIf& b) { return a.saving_ns > b.saving_ns; });
  }
  return out;
}

}  // namespace brickprof
