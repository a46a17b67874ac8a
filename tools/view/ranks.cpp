// The ranks side by side (see ranks.h).
#include "tools/view/ranks.h"

#include <algorithm>
#include <map>

#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof::view {
namespace {

constexpr size_t kNameWidth = 22;
constexpr size_t kCell = 12;

}  // namespace

Lines ranks_lines(Session& session) {
  Lines out;
  const Trace& whole = session.whole();
  if (whole.sources.empty()) {
    out.emplace_back().add("Not a merged trace: one process, no ranks to compare.", Style::kDim);
    return out;
  }
  const std::vector<TraceSummary>& ranks = session.rank_summaries();
  out.emplace_back()
      .add("Ranks side by side", Style::kBold)
      .add(session.under().empty() ? "" : "  (under \"" + session.under() + "\")", Style::kWarning);
  out.emplace_back();
  Line& head = out.emplace_back();
  head.add(pad_right("", kNameWidth), Style::kHeader);
  for (const SourceInfo& s : whole.sources)
    head.add(pad_left(clip(printable(s.label), kCell - 1), kCell), Style::kHeader);
  head.add(pad_left("max/min", kCell), Style::kHeader);
  auto row = [&](const std::string& name, const std::vector<std::string>& cells) {
    Line& l = out.emplace_back();
    l.add(pad_right(clip(name, kNameWidth - 1), kNameWidth), Style::kDim);
    for (const std::string& c : cells) l.add(pad_left(c, kCell));
  };
  std::vector<std::string> program, pid, run, nodes, kernels;
  for (size_t i = 0; i < whole.sources.size(); ++i) {
    const ProcessInfo& p = whole.sources[i].process;
    program.push_back(clip(printable(p.program), kCell - 1));
    pid.push_back(std::to_string(p.pid));
    run.push_back(format_duration(p.end_ns - p.start_ns));
    nodes.push_back(std::to_string(ranks[i].nodes));
    kernels.push_back(std::to_string(ranks[i].kernels));
  }
  row("program", program);
  row("pid", pid);
  row("run", run);
  row("nodes", nodes);
  row("kernels", kernels);

  // Bricks in order of first appearance over the ranks; each rank's total.
  std::vector<std::string> names;
  std::map<std::string, std::vector<int64_t>> totals;
  for (size_t i = 0; i < ranks.size(); ++i)
    for (const BrickStat& b : ranks[i].stats.bricks) {
      auto [it, added] = totals.try_emplace(b.name, ranks.size(), -1);
      if (added) names.push_back(b.name);
      it->second[i] = b.total_ns;
    }
  out.emplace_back();
  out.emplace_back().add("Brick time per rank (CPU scope time; the slowest rank marked)",
                         Style::kBold);
  if (names.empty()) out.emplace_back().add("(no bricks)", Style::kDim);
  for (const std::string& name : names) {
    const std::vector<int64_t>& t = totals[name];
    int64_t most = -1, least = -1;
    int ranks_with = 0;
    for (int64_t v : t) {
      if (v < 0) continue;
      ++ranks_with;
      most = std::max(most, v);
      least = least < 0 ? v : std::min(least, v);
    }
    Line& l = out.emplace_back();
    if (name.empty())
      l.add(pad_right("(no name)", kNameWidth), Style::kDim);
    else
      l.add(pad_right(clip(name, kNameWidth - 1), kNameWidth), Style::kBrick);
    for (int64_t v : t) {
      const bool slowest = v == most && ranks_with > 1 && most > least;
      l.add(pad_left(v < 0 ? "-" : format_duration(v), kCell),
            slowest ? Style::kWarning : Style::kNormal);
    }
    // Only a brick that ran on two ranks or more has a spread.
    l.add(
        pad_left(ranks_with > 1 && least > 0
                     ? format_fixed(static_cast<double>(most) / static_cast<double>(least), 2) + "x"
                     : "-",
                 kCell),
        Style::kDim);
  }
  return out;
}

}  // namespace brickprof::view
