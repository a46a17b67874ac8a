// Per-rank temporal breakdown (see rank_breakdown.h).
#include "analysis/analyses/rank_breakdown.h"

#include <algorithm>
#include <array>

namespace brickprof {
namespace {

// Classes in order of precedence: a moment is compute if anything computes.
enum Layer : uint8_t { kCompute, kWaiting, kCommunication, kMemory, kLayers };

struct Boundary {
  int64_t at;
  int8_t delta;
  uint8_t layer;
  bool operator<(const Boundary& o) const { return at < o.at; }
};

void add(std::vector<Boundary>& edges, int64_t start, int64_t end, Layer layer) {
  if (end <= start) return;
  edges.push_back({start, +1, layer});
  edges.push_back({end, -1, layer});
}

void sweep(std::vector<Boundary>& edges, RankBreakdown& row) {
  std::sort(edges.begin(), edges.end());
  std::array<int, kLayers> active{};
  int64_t at = row.start_ns;
  for (const Boundary& e : edges) {
    const int64_t piece = e.at - at;
    if (piece > 0) {
      if (active[kCompute] > 0) {
        row.compute_ns += piece;
        if (active[kCommunication] > 0 || active[kWaiting] > 0) row.overlap_ns += piece;
      } else if (active[kWaiting] > 0) {
        row.waiting_ns += piece;
      } else if (active[kCommunication] > 0) {
        row.communication_ns += piece;
      } else if (active[kMemory] > 0) {
        row.memory_ns += piece;
      } else {
        row.idle_ns += piece;
      }
      at = e.at;
    }
    active[e.layer] += e.delta;
  }
}

}  // namespace

RankBreakdownReport rank_breakdown(const Trace& t, const RankWork& work,
                                   const CollectiveReport& collectives) {
  RankBreakdownReport r;
  r.ranks = work.ranks;
  const size_t ranks = r.ranks.ranks.size();
  std::vector<std::vector<Boundary>> edges(ranks);
  std::vector<RankBreakdown> rows(ranks);
  std::vector<bool> any(ranks, false);
  std::vector<uint8_t> any_compute(ranks, 0);
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const WorkClass c = work.of_node[i];
    const uint32_t rank = work.ranks.of_node[i];
    if (c == WorkClass::kNone || rank >= ranks) continue;
    const Node& n = t.nodes[i];
    RankBreakdown& row = rows[rank];
    row.start_ns = any[rank] ? std::min(row.start_ns, n.start_ns) : n.start_ns;
    row.end_ns = any[rank] ? std::max(row.end_ns, n.end_ns) : n.end_ns;
    any[rank] = true;
    if (c == WorkClass::kCompute) {
      const bool first = any_compute[rank] == 0;
      row.compute_start_ns = first ? n.start_ns : std::min(row.compute_start_ns, n.start_ns);
      row.compute_end_ns = first ? n.end_ns : std::max(row.compute_end_ns, n.end_ns);
      any_compute[rank] = 1;
    }
    add(edges[rank], n.start_ns, n.end_ns,
        c == WorkClass::kCompute         ? kCompute
        : c == WorkClass::kCommunication ? kCommunication
                                         : kMemory);
  }
  for (const CollectiveCall& call : collectives.calls)
    if (call.rank < ranks && call.wait_ns > 0)
      add(edges[call.rank], call.arrival_ns, call.arrival_ns + call.wait_ns, kWaiting);
  for (uint32_t rank = 0; rank < ranks; ++rank) {
    if (!any[rank]) continue;
    RankBreakdown& row = rows[rank];
    row.rank = rank;
    row.gpu = work.gpu_timeline[rank];
    // Waits of calls outside the span (host waits of a GPU rank) are clipped.
    for (Boundary& e : edges[rank]) e.at = std::clamp(e.at, row.start_ns, row.end_ns);
    sweep(edges[rank], row);
    r.rows.push_back(row);
  }
  return r;
}

}  // namespace brickprof
