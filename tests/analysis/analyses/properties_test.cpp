// Property tests: invariants that hold whatever the definitions, checked on
// a few hundred traces drawn from seeds by generate_varied_trace (nested
// scopes, several threads, devices and streams, overlaps, gaps, copies both
// ways, memsets, syncs of every kind, event records and waits, graph
// replays, zero-length nodes, equal timestamps, capture windows), and the
// critical path of small ones against a brute-force reference
// (reference_path.h).
//
// Reproducible: seeds 1..N. A failure names its seed; rerun it alone with
//   BRICKPROF_PROPERTY_SEED=N build/tests/analysis/analyses/test_properties
// BRICKPROF_PROPERTY_COUNT=N changes how many; BRICKPROF_PROPERTY_DUMP=DIR
// writes each trace as DIR/varied-<seed>.json (for checks outside the tests).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "analysis/analyses/critical_path.h"
#include "analysis/analyses/gpu_idle.h"
#include "analysis/analyses/trace_subset.h"
#include "analysis/analyses/transfers.h"
#include "analysis/views/views.h"
#include "tests/analysis/analyses/reference_path.h"
#include "tests/support/trace_generator.h"
#include "trace/derive/stats.h"
#include "trace/json/trace_json.h"
#include "trace/output/whole_trace.h"

namespace brickprof {
namespace {

using nlohmann::json;

constexpr uint64_t kTraces = 1000;      // per run: the varied traces
constexpr uint64_t kSmallTraces = 600;  // and the small ones for the reference
constexpr uint64_t kSmallSeedBase = 1'000'000;

// The seeds to run: BRICKPROF_PROPERTY_SEED alone, else 1..count.
std::vector<uint64_t> seeds(uint64_t count, uint64_t base = 0) {
  if (const char* one = std::getenv("BRICKPROF_PROPERTY_SEED"))
    return {std::strtoull(one, nullptr, 10)};
  if (const char* n = std::getenv("BRICKPROF_PROPERTY_COUNT"))
    count = std::strtoull(n, nullptr, 10);
  std::vector<uint64_t> out;
  for (uint64_t s = 1; s <= count; ++s) out.push_back(base + s);
  return out;
}

std::string repro(uint64_t seed) {
  return "seed " + std::to_string(seed) +
         " (rerun: BRICKPROF_PROPERTY_SEED=" + std::to_string(seed) + " test_properties)";
}

Trace varied(uint64_t seed, uint32_t nodes) {
  Trace t = generate_varied_trace({seed, nodes});
  if (const char* dir = std::getenv("BRICKPROF_PROPERTY_DUMP")) {
    std::ofstream out(std::string(dir) + "/varied-" + std::to_string(seed) + ".json");
    write_format("json", t, out);
  }
  return t;
}

std::string render(const View& v, const Trace& t, const ViewSettings& s, bool as_json) {
  std::ostringstream out;
  render_view(v, t, compute_view(v, t, s), as_json, out);
  return out.str();
}

// Every view with a JSON form, as one parsed object.
json all_views(const Trace& t, const ViewSettings& s) {
  json out = json::object();
  for (const View* v : report_views()) {
    if (!v->has_json() || v->value_name) continue;
    render(*v, t, s, false);  // the text renders too
    out[v->name] = json::parse(render(*v, t, s, true));
  }
  return out;
}

// Where two JSON values differ (a JSON patch from a to b), short.
std::string difference(const json& a, const json& b) {
  std::string patch = json::diff(a, b).dump();
  return patch.size() > 600 ? patch.substr(0, 600) + "..." : patch;
}

int64_t union_length(std::vector<std::pair<int64_t, int64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  int64_t total = 0, start = 0, end = INT64_MIN;
  for (const auto& [a, b] : spans) {
    if (a > end) {
      if (end != INT64_MIN) total += end - start;
      start = a;
      end = b;
    } else {
      end = std::max(end, b);
    }
  }
  return end == INT64_MIN ? total : total + end - start;
}

// |[a, b) less `covered` (sorted, disjoint) less the windows|.
int64_t outside_windows(int64_t a, int64_t b, const std::vector<std::pair<int64_t, int64_t>>& busy,
                        const std::vector<TimeRange>& windows) {
  if (windows.empty()) return 0;
  std::vector<std::pair<int64_t, int64_t>> covered = busy;
  for (const TimeRange& w : windows) covered.push_back({w.start_ns, w.end_ns});
  std::vector<std::pair<int64_t, int64_t>> clipped;
  for (auto [x, y] : covered)
    if (std::min(y, b) > std::max(x, a)) clipped.push_back({std::max(x, a), std::min(y, b)});
  return (b - a) - union_length(clipped);
}

// GPU idle: busy and the time between windows computed here, idle from
// the gaps; together they are the span.
void check_gpu_idle(const Trace& t) {
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> ops;
  for (const Node& n : t.nodes)
    if (const GpuDetail* d = t.detail(n); d && is_gpu_kind(n.kind) && n.kind != NodeKind::kSync)
      ops[d->device].push_back({n.start_ns, n.end_ns});
  const GpuIdleReport r = analyze_gpu_idle(t);
  ASSERT_EQ(r.devices.size(), ops.size());
  for (const DeviceIdle& d : r.devices) {
    auto& mine = ops[d.device];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (auto [a, b] : mine) lo = std::min(lo, a), hi = std::max(hi, b);
    EXPECT_EQ(d.span_ns, hi - lo) << "device " << d.device;
    EXPECT_EQ(d.busy_ns, union_length(mine)) << "device " << d.device;
    EXPECT_EQ(d.outside_capture_ns, outside_windows(lo, hi, mine, t.diagnostics.capture_windows));
    int64_t gaps_ns = 0;
    uint64_t gaps = 0;
    for (const GapBucket& b : d.buckets) gaps_ns += b.ns, gaps += b.count;
    EXPECT_EQ(gaps, d.gaps);
    EXPECT_EQ(d.busy_ns + gaps_ns + d.outside_capture_ns, d.span_ns) << "device " << d.device;
    EXPECT_EQ(d.host_ns + d.issued_ns + d.unknown_ns, gaps_ns);
    int64_t scopes = 0;
    for (const HostWait& h : d.host_scopes) scopes += h.ns;
    EXPECT_EQ(scopes, d.host_ns);  // every host scope listed
    for (const IdleGap& g : d.largest) EXPECT_LE(g.host_ns, g.ns);
  }
}

// Bricks and categories from the nodes, counted here.
void check_stats(const Trace& t) {
  struct Want {
    uint64_t count = 0, kernels = 0;
    int64_t total = 0, gpu = 0;
  };
  std::map<std::string, Want> want;
  for (uint32_t i = 0; i < t.nodes.size(); ++i) {
    const Node& n = t.nodes[i];
    if (n.kind == NodeKind::kBrick) {
      Want& w = want[std::string(t.name(n))];
      w.count++;
      w.total += n.duration_ns();
    }
    if (n.kind != NodeKind::kKernel) continue;
    uint32_t p = n.parent;
    while (p != kNoNode && t.nodes[p].kind != NodeKind::kBrick) p = t.nodes[p].parent;
    if (p == kNoNode) continue;
    Want& w = want[std::string(t.name(t.nodes[p]))];
    w.gpu += n.duration_ns();
    w.kernels++;
  }
  const TraceStats s = compute_stats(t);
  ASSERT_EQ(s.bricks.size(), want.size());
  int64_t bricks_total = 0;
  uint64_t bricks_count = 0;
  for (const BrickStat& b : s.bricks) {
    const Want& w = want[b.name];
    EXPECT_EQ(b.count, w.count) << b.name;
    EXPECT_EQ(b.total_ns, w.total) << b.name;
    EXPECT_EQ(b.gpu_ns, w.gpu) << b.name;
    EXPECT_EQ(b.kernels, w.kernels) << b.name;
    bricks_total += b.total_ns;
    bricks_count += b.count;
  }
  int64_t categories_total = 0;
  uint64_t categories_count = 0;
  for (const CategoryStat& c : s.categories)
    categories_total += c.total_ns, categories_count += c.count;
  EXPECT_EQ(categories_total, bricks_total);
  EXPECT_EQ(categories_count, bricks_count);
}

void check_transfers(const Trace& t) {
  const TransferReport r = analyze_transfers(t, {});
  uint64_t count = 0, bytes = 0, zero = 0;
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kTransfer) {
      ++count;
      bytes += t.detail(n)->bytes;
      zero += n.duration_ns() == 0;
    }
  uint64_t got_count = 0, got_bytes = 0, got_zero = 0;
  for (const DirectionTotal& d : r.totals) {
    got_count += d.count, got_bytes += d.bytes, got_zero += d.zero_length;
    EXPECT_TRUE(std::isfinite(d.gbps()));
    EXPECT_EQ(d.has_rate(), d.count > d.zero_length);
  }
  EXPECT_EQ(got_count, count);
  EXPECT_EQ(got_bytes, bytes);
  EXPECT_EQ(got_zero, zero);
  for (const CopyFinding& f : r.slow) {
    EXPECT_TRUE(f.has_rate());
    EXPECT_GE(f.bytes, 1u << 20);
    EXPECT_LT(f.link_share, 0.5);
  }
}

// The measured span, from the trace (with API times): first to last of GPU
// work and of each thread's timeline, which runs from its first scope, host
// wait (a blocking copy's call included) or launch to its last, when that
// is any time at all.
int64_t span_from_nodes(const Trace& t) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  std::map<uint32_t, std::pair<int64_t, int64_t>> threads;
  auto on_thread = [&](uint32_t thread, int64_t a, int64_t b) {
    auto [it, added] = threads.try_emplace(thread, a, b);
    if (!added) it->second = {std::min(it->second.first, a), std::max(it->second.second, b)};
  };
  for (const Node& n : t.nodes) {
    if (is_range_lane(n.thread)) continue;
    const GpuDetail* d = t.detail(n);
    const bool marker =
        n.kind == NodeKind::kSync && d &&
        (d->sync == SyncKind::kStreamWait ||
         (d->sync == SyncKind::kEvent && t.name(n).find("Record") != std::string::npos));
    if (is_cpu_kind(n.kind) || (n.kind == NodeKind::kSync && !marker)) {
      on_thread(n.thread, n.start_ns, n.end_ns);
      continue;
    }
    on_thread(n.thread, d->api_start_ns, d->api_start_ns);  // the launch
    if (marker) {
      lo = std::min(lo, d->api_start_ns), hi = std::max(hi, d->api_start_ns);
      continue;
    }
    lo = std::min(lo, n.start_ns), hi = std::max(hi, n.end_ns);
    if (n.kind != NodeKind::kKernel && d->api_end_ns >= n.end_ns)
      on_thread(n.thread, d->api_start_ns, d->api_end_ns);
  }
  for (const auto& [thread, extent] : threads)
    if (extent.second > extent.first)
      lo = std::min(lo, extent.first), hi = std::max(hi, extent.second);
  return hi - lo;
}

// The longest single chains: each stream's GPU work, each thread's scopes
// less its host waits.
int64_t longest_chain(const Trace& t) {
  std::map<std::pair<uint32_t, uint32_t>, int64_t> streams;
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> scopes, waits;
  for (const Node& n : t.nodes) {
    if (is_range_lane(n.thread)) continue;
    const GpuDetail* d = t.detail(n);
    if (is_cpu_kind(n.kind)) scopes[n.thread].push_back({n.start_ns, n.end_ns});
    if (d && n.kind != NodeKind::kSync) streams[{d->device, d->stream}] += n.duration_ns();
    if (n.kind == NodeKind::kSync && d && d->sync != SyncKind::kStreamWait)
      waits[n.thread].push_back({n.start_ns, n.end_ns});  // records too: at most their call
    if (d && d->api_start_ns && n.kind != NodeKind::kSync && n.kind != NodeKind::kKernel &&
        d->api_end_ns >= n.end_ns)
      waits[n.thread].push_back({d->api_start_ns, d->api_end_ns});
  }
  int64_t best = 0;
  for (const auto& [lane, ns] : streams) best = std::max(best, ns);
  if (t.diagnostics.capture_windows.empty())
    for (auto& [thread, s] : scopes) {
      // Scope time less the waits inside it (waits are nested in scopes or
      // outside them; union arithmetic keeps it exact either way).
      std::vector<std::pair<int64_t, int64_t>> both = s;
      both.insert(both.end(), waits[thread].begin(), waits[thread].end());
      const int64_t waits_outside = union_length(both) - union_length(s);
      best = std::max(best, union_length(s) - (union_length(waits[thread]) - waits_outside));
    }
  return best;
}

bool has_api_times(const Trace& t) {
  for (const Node& n : t.nodes)
    if (const GpuDetail* d = t.detail(n); d && d->api_start_ns) return true;
  return false;
}

void check_critical_path(const Trace& t) {
  const DependencyGraph g = build_dependency_graph(t);
  const CriticalPath cp = compute_critical_path(t, g);
  EXPECT_LE(cp.length_ns, cp.measured_span_ns);
  if (t.diagnostics.capture_windows.empty() && has_api_times(t) && g.size()) {
    EXPECT_EQ(cp.measured_span_ns, span_from_nodes(t));
  }
  EXPECT_GE(cp.length_ns, longest_chain(t));
  int64_t steps = 0;
  for (const PathStep& s : cp.steps) steps += s.duration_ns;
  EXPECT_EQ(steps + cp.start_offset_ns, cp.length_ns);
  for (const NodeSlack& s : cp.nodes) EXPECT_GE(s.slack_ns, 0) << "node " << s.node;
  for (int64_t s : cp.slack) EXPECT_GE(s, 0);
  // What-if: K = 1 changes nothing, K = 2 never lengthens the path.
  std::set<std::string_view> names;
  for (const Node& n : t.nodes)
    if (n.kind == NodeKind::kBrick || n.kind == NodeKind::kKernel || n.kind == NodeKind::kScope)
      names.insert(t.name(n));
  size_t tried = 0;
  for (std::string_view name : names) {
    if (tried++ == 4) break;
    const WhatIf same = what_if(t, g, name, 1);
    EXPECT_EQ(same.before_ns, cp.length_ns) << name;
    EXPECT_EQ(same.after_ns, same.before_ns) << name;
    EXPECT_LE(what_if(t, g, name, 2).after_ns, cp.length_ns) << name;
    EXPECT_LE(what_if(t, g, name, 2.5).after_ns, what_if(t, g, name, 1.5).after_ns) << name;
  }
}

// Every node under a "root" scope: --under root is the whole trace, in
// every JSON view, node ids included.
void check_under_root(const Trace& t) {
  const Subset s = subtrees_named(t, "root");
  if (s.roots == 0 || s.trace.nodes.size() != t.nodes.size()) return;
  ViewSettings settings;
  const json whole = all_views(t, settings), under = all_views(s.trace, settings);
  EXPECT_TRUE(whole == under) << "--under root: " << difference(whole, under);
}

// The views' node ids under --under are the file's: each names the node
// of that name in the whole trace.
void check_under_ids(const Trace& t) {
  std::map<std::string, size_t> scopes;
  for (const Node& n : t.nodes)
    if (is_cpu_kind(n.kind) && !is_range_lane(n.thread)) scopes[std::string(t.name(n))]++;
  for (const auto& [name, count] : scopes) {
    const Subset s = subtrees_named(t, name);
    ASSERT_GT(s.roots, 0u) << name;
    const json cp = json::parse(render(*find_view("critical-path"), s.trace, {}, true));
    for (const json& step : cp["steps"]) {
      if (step["node"].is_null()) continue;
      const uint32_t id = step["node"].get<uint32_t>();
      ASSERT_LT(id, t.nodes.size());
      EXPECT_EQ(step["kind"], to_string(t.nodes[id].kind)) << name;
    }
    break;  // one name per trace is enough
  }
}

TEST(Properties, InvariantsHoldOnVariedTraces) {
  for (uint64_t seed : seeds(kTraces)) {
    SCOPED_TRACE(repro(seed));
    const Trace t = varied(seed, static_cast<uint32_t>(40 + seed % 260));
    check_gpu_idle(t);
    check_stats(t);
    check_transfers(t);
    check_critical_path(t);
    check_under_root(t);
    check_under_ids(t);
    // Written and read back, the trace gives the same views.
    std::ostringstream file;
    write_format("json", t, file);
    const Trace back = parse_trace_json(file.str());
    const json before = all_views(t, {}), after = all_views(back, {});
    EXPECT_TRUE(before == after) << "written and read back: " << difference(before, after);
    if (HasFailure()) {
      ADD_FAILURE() << "first failing " << repro(seed);
      return;
    }
  }
}

TEST(Properties, CriticalPathMatchesABruteForceReference) {
  for (uint64_t seed : seeds(kSmallTraces, kSmallSeedBase)) {
    SCOPED_TRACE(repro(seed));
    const Trace t = varied(seed, static_cast<uint32_t>(4 + seed % 9));
    const CriticalPath cp = compute_critical_path(t, build_dependency_graph(t));
    const test::ReferencePath ref = test::reference_critical_path(t);
    EXPECT_EQ(cp.length_ns, ref.length_ns);
    EXPECT_EQ(cp.measured_span_ns, ref.measured_span_ns);
    if (HasFailure()) {
      ADD_FAILURE() << "first failing " << repro(seed);
      return;
    }
  }
}

}  // namespace
}  // namespace brickprof
