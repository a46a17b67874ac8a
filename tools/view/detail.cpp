// The detail pane's lines (see detail.h). Each section reads one model;
// the only figures made here are the row's own: the spread of its calls'
// durations (spread_of), sums over its steps on the critical path, and a
// transfer row's bytes over its time.
#include "tools/view/detail.h"

#include <algorithm>

#include "analysis/analyses/launch_stats.h"
#include "analysis/analyses/memory_report.h"
#include "analysis/analyses/ptx_lookup.h"
#include "analysis/analyses/roofline.h"
#include "analysis/analyses/spread.h"
#include "tools/view/tree_pane.h"
#include "trace/derive/stats.h"
#include "trace/model/format.h"
#include "trace/model/hash_text.h"

namespace brickprof::view {
namespace {

constexpr size_t kMaxPathLevels = 6;

std::string share(int64_t part, int64_t whole) {
  return format_share(static_cast<double>(part), static_cast<double>(whole));
}

constexpr size_t kLabelWidth = 14;

// The label in its column, then the text: one labelled line.
Line& field(Lines& out, std::string_view label) {
  std::string padded(label);
  padded.resize(std::max(kLabelWidth, padded.size() + 1), ' ');
  return out.emplace_back().add(padded, Style::kDim);
}

std::string path_of(const BrowseTree& tree, uint32_t row) {
  std::vector<std::string> parts;
  size_t levels = 0;
  for (uint32_t p = tree.parent(row); p != kNoRow; p = tree.parent(p)) {
    if (++levels > kMaxPathLevels) {
      parts.emplace_back("…");
      break;
    }
    parts.push_back(tree.label(p));
  }
  std::string s;
  for (size_t i = parts.size(); i-- > 0;) s += parts[i] + (i ? " › " : "");
  return s;
}

void spread_section(Lines& out, const Trace& t, std::span<const uint32_t> members) {
  std::vector<int64_t> durations;
  durations.reserve(members.size());
  for (uint32_t m : members) durations.push_back(t.nodes[m].duration_ns());
  const Spread s = spread_of(durations);
  field(out, "one call")
      .add("min ")
      .add(format_duration(s.min_ns), Style::kBold)
      .add("  median ")
      .add(format_duration(s.median_ns), Style::kBold)
      .add("  p99 ")
      .add(format_duration(s.p99_ns), Style::kBold)
      .add("  max ")
      .add(format_duration(s.max_ns), Style::kBold);
}

void path_section(Lines& out, Session& session, const BrowseTree& tree, uint32_t entry,
                  std::span<const uint32_t> members) {
  std::string error;
  const CriticalPathReport* r = session.critical_path(&error);
  if (!r) {
    field(out, "critical path").add("not available: " + error, Style::kWarning);
    return;
  }
  int64_t on_path = 0;
  uint64_t steps = 0;
  for (const PathStep& s : r->path.steps) {
    if (s.node == kNoNode || tree.row_of_node(s.node) != entry) continue;
    on_path += s.duration_ns;
    ++steps;
  }
  const std::vector<int64_t>& slack = session.slack_by_node();
  int64_t least = -1;
  for (uint32_t m : members)
    if (slack[m] >= 0 && (least < 0 || slack[m] < least)) least = slack[m];
  Line& line = field(out, "critical path");
  if (steps)
    line.add(std::to_string(steps) + " step" + (steps == 1 ? "" : "s") + ", ")
        .add(format_duration(on_path), Style::kBold)
        .add(" of " + format_duration(r->path.length_ns) + " (" +
             share(on_path, r->path.length_ns) + ")");
  else
    line.add("not on it");
  if (least >= 0) line.add("   slack ").add(format_duration(least), Style::kBold).add(" (least)");
  if (!session.what_ifs().empty()) {
    const WhatIf& w = session.what_ifs().back();
    field(out, "what-if")
        .add(w.target + " " +
             format_fixed(w.factor, w.factor == static_cast<int64_t>(w.factor) ? 0 : 2) +
             "x faster: path " + format_duration(w.before_ns) + " → ")
        .add(format_duration(w.after_ns), Style::kBold);
  }
}

void roofline_section(Lines& out, Session& session, std::string_view name, bool kernel) {
  const ViewModel* m = session.model("roofline");
  if (!m) return;
  const Roofline& roof = std::any_cast<const Roofline&>(*m);
  const auto kind = kernel ? RooflineEntry::Kind::kKernel : RooflineEntry::Kind::kBrick;
  bool any = false;
  for (const RooflineEntry& e : roof.entries) {
    if (e.kind != kind || e.name != name) continue;
    any = true;
    const std::string on = e.gpu ? "gpu" + std::to_string(e.device) : "cpu";
    field(out, "roofline")
        .add(format_fixed(e.intensity(), 2) + " FLOP/B  " + format_fixed(e.gflops(), 1) +
             " GFLOP/s  " + format_fixed(e.gbps(), 1) + " GB/s  ")
        .add(e.memory_bound() ? "memory-bound" : "compute-bound", Style::kBold)
        .add(", " + format_fixed(100.0 * e.efficiency(), 1) + "% of the " + on + " roof",
             e.efficiency() > 1.0 ? Style::kWarning : Style::kNormal);
    field(out, "").add("every " + std::string(name) + " on " + on + ", work from " + e.work_source,
                       Style::kDim);
  }
  if (!any) field(out, "roofline").add("no flops/bytes annotation", Style::kDim);
}

// Per kernel name and launch path: every launch of that name, not this
// row's alone (the launches view's rows).
void launch_section(Lines& out, Session& session, std::string_view name) {
  const ViewModel* m = session.model("launches");
  if (!m) return;
  for (const KernelLaunches& k : std::any_cast<const LaunchStats&>(*m).by_kernel) {
    if (k.name != name) continue;
    Line& line = field(out, k.from_graph ? "graph replay" : "launch");
    line.add("all " + std::to_string(k.count) + (k.from_graph ? " replayed: " : " direct: "),
             Style::kDim);
    if (k.call.count)
      line.add("call median ").add(format_duration(k.call.median_ns), Style::kBold).add(", ");
    if (k.delay.count)
      line.add("start delay median ")
          .add(format_duration(k.delay.median_ns), Style::kBold)
          .add(" (p99 " + format_duration(k.delay.p99_ns) + ")");
    if (k.shorter_than_call)
      line.add(", " + std::to_string(k.shorter_than_call) + " launch-bound", Style::kWarning);
  }
}

void brick_section(Lines& out, Session& session, std::string_view name) {
  const ViewModel* m = session.model("summary");
  if (!m) return;
  for (const BrickStat& b : std::any_cast<const TraceSummary&>(*m).stats.bricks) {
    if (b.name != name) continue;
    field(out, "by name")
        .add("all " + std::to_string(b.count) + " " + std::string(name) + ": avg " +
             format_duration(b.avg_ns()) + ", GPU " + format_duration(b.gpu_ns) + " in " +
             std::to_string(b.kernels) + " ops, " + format_rate(b.throughput(), "elem") + " (" +
             std::string(to_string(b.category)) + ")");
  }
}

// Per memory account, over the row's calls: what they allocated and freed
// inside them, and the account's highest live bytes while one ran
// (memory_nodes.h); a single call also its live bytes at start and end.
void memory_section(Lines& out, Session& session, std::span<const uint32_t> members) {
  const Trace& t = session.trace();
  if (t.memory.empty()) return;
  const ViewModel* m = session.model("memory");
  if (!m) return;
  const MemoryReport& r = std::any_cast<const MemoryReport&>(*m);
  for (uint32_t a = 0; a < r.ledger.accounts.size(); ++a) {
    NodeMemory sum;
    bool touched = false;
    for (uint32_t node : members) {
      if (!r.nodes.touched(node)) continue;
      const NodeMemory one = r.nodes.of(t, r.ledger, node, a);
      touched |= one.allocations || one.frees;
      sum.allocated += one.allocated;
      sum.allocations += one.allocations;
      sum.freed += one.freed;
      sum.frees += one.frees;
      sum.peak = std::max(sum.peak, one.peak);
      sum.live_at_start = one.live_at_start;
      sum.live_at_end = one.live_at_end;
    }
    if (!touched) continue;
    field(out, "memory").add(account_label(t, r.ledger.accounts[a].key), Style::kDim);
    Line& line = field(out, "");
    line.add("+" + format_bytes(sum.allocated), Style::kBold)
        .add(" in " + std::to_string(sum.allocations) + " alloc" +
             (sum.allocations == 1 ? "" : "s") + ", ")
        .add("-" + format_bytes(sum.freed), Style::kBold)
        .add(" in " + std::to_string(sum.frees) + " free" + (sum.frees == 1 ? "" : "s") +
             ", peak ")
        .add(format_bytes(sum.peak), Style::kBold);
    if (members.size() == 1)
      line.add(", live " + format_bytes(sum.live_at_start) + " → " + format_bytes(sum.live_at_end));
    else
      line.add(" (the highest over its calls)", Style::kDim);
  }
}

// The diff's entry for the row as `brickprof diff` judged it: its status,
// the figures diff lists it with, and why (analysis/views/view_diff.cpp).
void diff_section(Lines& out, Session& session, uint32_t row) {
  const DiffEntry* e = session.diff_entry(row);
  if (!e) return;
  const TraceDiff& d = *session.diff();
  const std::string_view status = diff_status(*e);
  const Style style = status == "regression" ? Style::kRegression
                      : status == "improved" ? Style::kImproved
                      : status == "changed"  ? Style::kWarning
                                             : Style::kBold;
  field(out, "vs base")
      .add(status == "regression" ? "REGRESSION" : std::string(status), style)
      .add("  " + diff_entry_figures(*e, d));
  field(out, "").add(diff_entry_why(*e, d), Style::kDim);
  if (e->code_changed)
    field(out, "").add(
        "same name, different code: " + hash_text(e->base_ptx_hash) + " → " + hash_text(e->ptx_hash),
        Style::kChanged);
}

void ptx_section(Lines& out, const Trace& t, uint64_t hash, bool with_text) {
  const PtxModule* p = find_ptx(t, hash);
  Line& line = field(out, "PTX").add(hash_text(hash), Style::kPtx);
  if (!p) {
    line.add("  (not in the trace's registry)", Style::kDim);
    return;
  }
  line.add("  " + p->kind + ", " + format_bytes(p->bytes) + ", " +
           std::to_string(p->kernels.size()) + " kernel" + (p->kernels.size() == 1 ? "" : "s"));
  if (p->source.empty()) {
    field(out, "").add("text not stored (record with BRICKPROF_PTX=source)", Style::kDim);
    return;
  }
  if (!with_text) {
    field(out, "").add("text stored: select the PTX row below the kernel", Style::kDim);
    return;
  }
  out.emplace_back();
  for (Line& l : plain_lines(p->source, Style::kNormal)) out.push_back(std::move(l));
}

}  // namespace

Lines detail_lines(Session& session, uint32_t row) {
  BrowseTree& tree = session.tree();
  const Trace& t = session.trace();
  Lines out;
  const uint32_t entry = tree.entry(row);
  const AggregateNode& a = tree.aggregate().nodes[entry];
  Line& title = out.emplace_back().add(tree.label(row), row_style(tree, row));
  if (tree.is_ptx(row)) {
    title.add("  PTX module of " + tree.label(entry), Style::kDim);
    ptx_section(out, t, tree.ptx_hash(row), true);
    return out;
  }
  if (tree.is_outside(row)) {
    field(out, "total")
        .add(format_duration(a.total_ns), Style::kBold)
        .add("   " + share(a.total_ns, tree.run_ns()) + " of the run");
    field(out, "what")
        .add(
            "the run's wall time when no scope was open on any thread: start-up, exit, and code "
            "nobody marked. brickprof records scopes, NVTX ranges and GPU work and does not "
            "sample, "
            "so what ran then is not in the trace; a scope around it shows it here.");
    return out;
  }
  if (a.first == kNoNode) {
    title.add("  thread", Style::kDim);
    field(out, "total")
        .add(format_duration(a.total_ns) + " in " + std::to_string(a.child_count) +
             " top-level entries");
    return out;
  }
  const Node& n = t.nodes[a.first];
  std::string kind(to_string(n.kind));
  if (n.kind == NodeKind::kBrick)
    kind = "brick (a marked step of a layer), " + std::string(to_string(n.category));
  if (kind != tree.label(row)) title.add("  " + kind, Style::kDim);
  if (const std::string extra = row_extra(tree, row); !extra.empty()) title.add("  " + extra);
  if (const std::string where = path_of(tree, row); !where.empty())
    field(out, "in").add(where, Style::kDim);

  const int64_t avg = a.count ? a.total_ns / static_cast<int64_t>(a.count) : 0;
  field(out, "calls")
      .add(std::to_string(a.count), Style::kBold)
      .add("   total ")
      .add(format_duration(a.total_ns), Style::kBold)
      .add("   avg ")
      .add(format_duration(avg), Style::kBold)
      .add("   self " + format_duration(a.self_ns) + "   GPU " + format_duration(tree.gpu_ns(row)) +
           "   " + share(a.total_ns, tree.run_ns()) + " of the run");
  std::span<const uint32_t> members = tree.members(entry);
  spread_section(out, t, members);

  const GpuDetail* g = t.detail(n);
  if (n.kind == NodeKind::kKernel && g)
    field(out, "on").add("gpu" + std::to_string(g->device) + ", stream " +
                         std::to_string(g->stream) + (g->graph_node ? ", from a CUDA graph" : ""));
  if ((n.kind == NodeKind::kTransfer || n.kind == NodeKind::kMemset) && g) {
    Line& line = field(out, "bytes").add(format_bytes(a.bytes), Style::kBold);
    if (n.kind == NodeKind::kTransfer)
      line.add("  " + std::string(to_string(g->src_kind)) + " → " +
               std::string(to_string(g->dst_kind)));
    if (a.total_ns > 0)
      line.add(
          "  " +
          format_rate(static_cast<double>(a.bytes) * 1e9 / static_cast<double>(a.total_ns), "B"));
  }
  path_section(out, session, tree, entry, members);
  if (is_cpu_kind(n.kind)) memory_section(out, session, members);
  diff_section(out, session, row);
  const std::string name(t.name(n));
  if (n.kind == NodeKind::kBrick) {
    brick_section(out, session, name);
    roofline_section(out, session, name, false);
  }
  if (n.kind == NodeKind::kKernel) {
    roofline_section(out, session, name, true);
    launch_section(out, session, name);
    for (uint32_t child : tree.children(row)) ptx_section(out, t, tree.ptx_hash(child), false);
    if (tree.children(row).empty()) field(out, "PTX").add("hash not recorded", Style::kDim);
  }
  return out;
}

}  // namespace brickprof::view
