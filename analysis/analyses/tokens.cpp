// Tokens per second, time per token and counter series (see tokens.h).
#include "analysis/analyses/tokens.h"

#include <algorithm>
#include <unordered_map>

namespace brickprof {
namespace {

// For every node, its outermost ancestor (itself when it has no parent);
// linear whatever the depth: each chain is walked once and remembered.
std::vector<uint32_t> outermost(const Trace& t) {
  const size_t n = t.nodes.size();
  std::vector<uint32_t> root(n, kNoNode);
  std::vector<uint32_t> path;
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t at = i;
    while (root[at] == kNoNode) {
      path.push_back(at);
      const uint32_t parent = t.nodes[at].parent;
      if (parent >= n || parent == at) {
        root[at] = at;
        break;
      }
      at = parent;
    }
    const uint32_t top = root[at];
    for (uint32_t p : path) root[p] = top;
    path.clear();
  }
  return root;
}

}  // namespace

double TokenFigures::per_second() const {
  return window_ns > 0 ? static_cast<double>(tokens) * 1e9 / static_cast<double>(window_ns) : 0;
}

double TokenFigures::ns_per_token() const {
  return tokens > 0 ? static_cast<double>(window_ns) / static_cast<double>(tokens) : 0;
}

TokenFigures token_figures(const Trace& t) {
  TokenFigures f;
  std::vector<uint32_t> roots;
  std::vector<bool> counted;
  for (const CounterSample& s : t.counters) {
    if (s.kind != CounterKind::kTokens) continue;
    if (roots.empty()) {
      roots = outermost(t);
      counted.assign(t.nodes.size(), false);
    }
    f.tokens += static_cast<uint64_t>(s.value);
    ++f.reports;
    if (s.scope >= t.nodes.size()) {
      ++f.outside_scopes;
      continue;
    }
    const uint32_t top = roots[s.scope];
    if (counted[top]) continue;
    counted[top] = true;
    ++f.scopes;
    f.window_ns += t.nodes[top].duration_ns();
  }
  if (f.outside_scopes > 0) f.window_ns += t.process.end_ns - t.process.start_ns;
  return f;
}

TokenReport analyze_tokens(const Trace& t) {
  TokenReport r;
  r.figures = token_figures(t);
  if (r.figures.tokens > 0) {
    r.stats = compute_stats(t);
    const double tokens = static_cast<double>(r.figures.tokens);
    for (size_t i = 0; i < r.stats.bricks.size(); ++i) {
      const double total = static_cast<double>(r.stats.bricks[i].total_ns);
      r.bricks.push_back({i, total / tokens, total > 0 ? tokens * 1e9 / total : 0});
    }
  }
  std::unordered_map<StringId, size_t> index;
  for (const CounterSample& s : t.counters) {
    if (s.kind != CounterKind::kValue) continue;
    auto [it, fresh] = index.emplace(s.name, r.counters.size());
    if (fresh) r.counters.push_back({s.name, 0, s.value, s.value, 0, 0});
    CounterSeries& c = r.counters[it->second];
    ++c.samples;
    c.min = std::min(c.min, s.value);
    c.max = std::max(c.max, s.value);
    c.mean += (s.value - c.mean) / static_cast<double>(c.samples);  // running: no overflow
    c.last = s.value;
  }
  return r;
}

}  // namespace brickprof
