// `report --memory`'s model (see memory_report.h).
#include "analysis/analyses/memory_report.h"

#include <algorithm>
#include <unordered_map>
#include <utility>


namespace brickprof {
namespace {


// Adds allocations to groups keyed by a path or a frame; then the groups,
// most bytes first (ties by key, so the order is the same every run).
class Grouping {
 public:
  void add(uint32_t key, uint64_t bytes) {
    MemoryGroup& g = groups_[key];
    g.key = key;
    g.bytes += bytes;
    ++g.count;
  }
  std::vector<MemoryGroup> sorted() const {
    std::vector<MemoryGroup> out;
    out.reserve(groups_.size());
    for (const auto& [key, g] : groups_) out.push_back(g);
    std::sort(out.begin(), out.end(), [](const MemoryGroup& a, const MemoryGroup& b) {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
    });
    return out;
  }

 private:
  std::unordered_map<uint32_t, MemoryGroup> groups_;
};

class Sites {
 public:
  void add(uint32_t path, uint32_t frame, uint64_t bytes) {
    MemorySite& s = sites_[uint64_t{path} << 32 | frame];
    s.path = path;
    s.frame = frame;
    s.bytes += bytes;
    ++s.count;
  }
  std::vector<MemorySite> sorted() const {
    std::vector<MemorySite> out;
    out.reserve(sites_.size());
    for (const auto& [key, s] : sites_) out.push_back(s);
    std::sort(out.begin(), out.end(), [](const MemorySite& a, const MemorySite& b) {
      if (a.bytes != b.bytes) return a.bytes > b.bytes;
      return std::pair(a.path, a.frame) < std::pair(b.path, b.frame);
    });
    return out;
  }

 private:
  std::unordered_map<uint64_t, MemorySite> sites_;
};

uint64_t device_memory(const Trace& t, const MemoryAccountKey& key) {
  if (key.account != MemoryAccount::kDevice && key.account != MemoryAccount::kPoolReserve) return 0;
  for (const Device& d : t.devices)
    if (d.id == key.device) return d.memory_bytes;
  return 0;
}

// Sums of bytes over preorder positions (a Fenwick tree).
class PositionSums {
 public:
  explicit PositionSums(size_t n) : tree_(n + 1, 0) {}
  void add(size_t position, uint64_t bytes) {
    for (size_t i = position + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += bytes;
  }
  uint64_t below(size_t position) const {  // positions [0, position)
    uint64_t sum = 0;
    for (size_t i = position; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  std::vector<uint64_t> tree_;
};

// Scopes run more than once under one path whose every run left
// survivors (see GrowingScope): per account, the runs as queries "bytes
// allocated inside this subtree and ended after T" answered by one sweep
// down the end times.
std::vector<GrowingScope> growing_scopes(const Trace& t, const MemoryLedger& ledger,
                                         const ScopePaths& paths, const NodeMemoryIndex& index,
                                         const std::vector<std::vector<uint32_t>>& allocs) {
  // In a merged trace each rank's runs are its own (its accounts are).
  const std::unordered_map<uint32_t, uint32_t> source_of_thread = source_of_threads(t);
  const auto source_of = [&](uint32_t node) {
    auto it = source_of_thread.find(t.nodes[node].thread);
    return it == source_of_thread.end() ? 0u : it->second;
  };
  std::unordered_map<uint64_t, std::vector<uint32_t>> runs;  // (source, path) -> its nodes
  for (uint32_t n = 0; n < t.nodes.size(); ++n)
    if (is_cpu_kind(t.nodes[n].kind)) runs[uint64_t{source_of(n)} << 32 | paths.of(n)].push_back(n);
  struct Query {
    uint32_t node;
    uint32_t path;
    uint32_t source;
    int64_t last_end;  // the end of the path's last run
  };
  std::vector<Query> queries;
  for (auto& [key, nodes] : runs) {
    if (nodes.size() < 2) continue;
    if (std::none_of(nodes.begin(), nodes.end(), [&](uint32_t n) { return index.touched(n); }))
      continue;
    int64_t last_end = INT64_MIN;
    for (uint32_t n : nodes) last_end = std::max(last_end, t.nodes[n].end_ns);
    for (uint32_t n : nodes)
      queries.push_back({n, static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32), last_end});
  }
  std::sort(queries.begin(), queries.end(), [](const Query& a, const Query& b) {
    return a.last_end != b.last_end ? a.last_end > b.last_end : a.node < b.node;
  });

  std::vector<GrowingScope> found;
  for (uint32_t account = 0; account < allocs.size(); ++account) {
    std::vector<std::pair<int64_t, uint32_t>> by_end;  // (ended, event), latest first
    for (uint32_t e : allocs[account])
      if (t.memory[e].scope < t.nodes.size()) by_end.push_back({ledger.ended_ns(t, e), e});
    if (by_end.empty()) continue;
    std::sort(by_end.begin(), by_end.end(), std::greater<>());
    PositionSums sums(t.nodes.size());
    std::unordered_map<uint32_t, GrowingScope> per_path;
    std::unordered_map<uint32_t, bool> every_run;
    size_t added = 0;
    const uint32_t source = ledger.accounts[account].key.source;
    for (const Query& q : queries) {
      if (q.source != source) continue;
      for (; added < by_end.size() && by_end[added].first > q.last_end; ++added) {
        const uint32_t e = by_end[added].second;
        sums.add(index.first(t.memory[e].scope), ledger.events[e].bytes);
      }
      const uint64_t survivors = sums.below(index.past(q.node)) - sums.below(index.first(q.node));
      GrowingScope& g = per_path[q.path];
      auto [all, first] = every_run.try_emplace(q.path, true);
      if (first) {
        g.path = q.path;
        g.account = account;
        g.least = survivors;
      }
      all->second = all->second && survivors > 0;
      ++g.runs;
      g.total += survivors;
      g.least = std::min(g.least, survivors);
      g.most = std::max(g.most, survivors);
    }
    // A path whose survivors are all those of a path inside it says
    // nothing more: keep the innermost.
    std::vector<GrowingScope> grown;
    for (const auto& [path, g] : per_path)
      if (every_run.at(path)) grown.push_back(g);
    std::unordered_map<uint32_t, uint64_t> totals;
    for (const GrowingScope& g : grown) totals[g.path] = g.total;
    std::unordered_map<uint32_t, bool> covered;
    for (const GrowingScope& g : grown)
      for (uint32_t p = paths.parent(g.path); p != kNoPath; p = paths.parent(p)) {
        auto it = totals.find(p);
        if (it != totals.end() && it->second == g.total) covered[p] = true;
      }
    for (const GrowingScope& g : grown)
      if (!covered.count(g.path)) found.push_back(g);
  }
  std::sort(found.begin(), found.end(), [](const GrowingScope& a, const GrowingScope& b) {
    if (a.total != b.total) return a.total > b.total;
    return std::pair(a.account, a.path) < std::pair(b.account, b.path);
  });
  return found;
}

}  // namespace

MemoryReport analyze_memory(const Trace& t) {
  MemoryReport r{build_memory_ledger(t), ScopePaths(t), {}, {}, {}, {}, 0, 0};
  const MemoryLedger& ledger = r.ledger;
  r.nodes = NodeMemoryIndex(t, ledger);
  // Each account's successful allocations, in time order.
  std::vector<std::vector<uint32_t>> allocs(ledger.accounts.size());
  for (uint32_t e : ledger.order)
    if (ledger.events[e].account != kNoAccount && t.memory[e].op == MemoryOp::kAlloc)
      allocs[ledger.events[e].account].push_back(e);

  for (uint32_t a = 0; a < ledger.accounts.size(); ++a) {
    const AccountSeries& series = ledger.accounts[a];
    AccountMemory m;
    m.account = a;
    m.device_bytes = device_memory(t, series.key);
    Grouping by_scope, by_line;
    Sites sites, at_exit;
    const bool peaked = series.peak > 0;
    if (peaked) m.peak_event = series.events[series.peak_at];
    for (uint32_t e : allocs[a]) {
      const ResolvedEvent& r_e = ledger.events[e];
      const MemoryEvent& ev = t.memory[e];
      const uint32_t path = r.paths.of(ev.scope);
      const uint32_t frame = innermost_frame(t, ev.python_stack);
      // A reserve event is a level: summing levels says nothing.
      if (series.key.account != MemoryAccount::kPoolReserve) sites.add(path, frame, r_e.bytes);
      if (r_e.pair == kNoEvent) at_exit.add(path, frame, r_e.bytes);
      if (peaked && r_e.at <= series.peak_at && series.peak_at < r_e.ended_at) {
        by_scope.add(path, r_e.bytes);
        by_line.add(frame, r_e.bytes);
      }
    }
    m.peak_by_scope = by_scope.sorted();
    m.peak_by_line = by_line.sorted();
    m.sites = sites.sorted();
    m.live_at_exit = at_exit.sorted();
    r.accounts.push_back(std::move(m));
  }

  for (const MemoryLedger::FailedAllocation& f : ledger.failed) {
    if (t.memory[f.event].result != kCudaErrorOutOfMemory) {
      ++r.other_failures;
      continue;
    }
    if (r.out_of_memory_count++ >= MemoryReport::kDetailedFailures) continue;
    OutOfMemory oom;
    oom.event = f.event;
    oom.account = f.account;
    const AccountSeries& series = ledger.accounts[f.account];
    oom.live = f.before == 0 ? 0 : series.live[f.before - 1];
    oom.device_bytes = device_memory(t, series.key);
    Grouping live;
    for (uint32_t e : allocs[f.account]) {
      const ResolvedEvent& r_e = ledger.events[e];
      if (r_e.at < f.before && f.before <= r_e.ended_at)
        live.add(r.paths.of(t.memory[e].scope), r_e.bytes);
    }
    oom.live_by_scope = live.sorted();
    r.out_of_memory.push_back(std::move(oom));
  }
  r.growing = growing_scopes(t, ledger, r.paths, r.nodes, allocs);
  return r;
}

}  // namespace brickprof
