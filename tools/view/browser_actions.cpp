// What the keys that act on the data do (see browser.h): the tree's keys,
// the critical path's c / C and the slowest kernel, search, and the
// prompts' outcomes (what-if, under) and ranks.
#include <algorithm>

#include "tools/view/browser.h"
#include "trace/derive/stats.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"

namespace brickprof::view {
namespace {

constexpr SortKey kSortCycle[] = {SortKey::kTree, SortKey::kTotal, SortKey::kAvg,   SortKey::kCount,
                                  SortKey::kGpu,  SortKey::kName,  SortKey::kChange};
constexpr const char* kSortNames[] = {
    "tree order", "total", "average", "count", "GPU time", "name", "change against the base"};

std::string times(double factor) {
  return format_fixed(factor, factor == static_cast<double>(static_cast<int64_t>(factor)) ? 0 : 2) +
         "x";
}

}  // namespace

int Browser::sort_position(SortKey key) {
  return static_cast<int>(std::find(std::begin(kSortCycle), std::end(kSortCycle), key) -
                          std::begin(kSortCycle));
}

void Browser::tree_key(Action a) {
  if (current().kind != Tab::Kind::kTree || !tree_at_hand()) return;
  BrowseTree& tree = session_.tree();
  const std::vector<uint32_t>& rows = tree.visible();
  if (rows.empty()) return;
  const uint32_t row = rows[std::min(tree_cursor_.selected, rows.size() - 1)];
  switch (a) {
    case Action::kCollapse:
      if (tree.has_children(row) && tree.expanded(row))
        tree.set_expanded(row, false);
      else if (tree.parent(row) != kNoRow)
        go_to_row(tree.parent(row));
      break;
    case Action::kExpand:
      if (!tree.has_children(row)) break;
      if (!tree.expanded(row))
        tree.set_expanded(row, true);
      else
        go_to_row(tree.children(row).front());
      break;
    case Action::kToggle:
      if (tree.has_children(row))
        tree.set_expanded(row, !tree.expanded(row));
      else
        detail_ = true;  // nothing to open: its details (a PTX row's text), as tig does
      break;
    case Action::kExpandAll:
      tree.set_expanded_below(row, true);
      break;
    case Action::kCollapseAll:
      tree.set_expanded_below(row, false);
      break;
    case Action::kSort:
    case Action::kInvertSort: {
      const int cycle = session_.has_base() ? 7 : 6;
      bool descending = tree.descending();
      if (a == Action::kSort) {
        sort_ = (sort_ + 1) % cycle;
        // No GPU column to sort by in a run without GPU work.
        if (kSortCycle[sort_] == SortKey::kGpu && !session_.has_gpu_work())
          sort_ = (sort_ + 1) % cycle;
        descending = kSortCycle[sort_] != SortKey::kName;
      } else {
        descending = !descending;
      }
      tree.sort(kSortCycle[sort_], descending, [this](uint32_t r) {
        const DiffEntry* e = session_.diff_entry(r);
        return e ? e->change_pct() : 0.0;
      });
      message_ = std::string("sorted by ") + kSortNames[sort_] +
                 (descending == (kSortCycle[sort_] != SortKey::kName) ? "" : ", inverted");
      go_to_row(row);
      break;
    }
    case Action::kSlowest:
      slowest();
      break;
    case Action::kNextOnPath:
    case Action::kPrevOnPath:
      next_on_path(a == Action::kNextOnPath);
      break;
    default:
      break;
  }
}

uint32_t Browser::selected_row() {
  if (!session_.tree_ready()) return kNoRow;
  switch (current().kind) {
    case Tab::Kind::kTree: {
      const std::vector<uint32_t>& rows = session_.tree().visible();
      return rows.empty() ? kNoRow : rows[std::min(tree_cursor_.selected, rows.size() - 1)];
    }
    case Tab::Kind::kPath: {
      const CriticalPathReport* cp = session_.critical_path();
      const uint32_t node = cp ? path_.selected_node(*cp) : kNoNode;
      return node == kNoNode ? kNoRow : session_.tree().row_of_node(node);
    }
    default:
      return kNoRow;
  }
}

void Browser::go_to_row(uint32_t row) {
  BrowseTree& tree = session_.tree();
  tree.reveal(row);
  const size_t at = tree.visible_index(row);
  if (at != SIZE_MAX) tree_cursor_.to(at, tree.visible().size());
  detail_cursor_ = {};
}

void Browser::slowest() {
  const ViewModel* m = session_.model("summary");
  if (!m || !tree_at_hand()) return;
  const TraceSummary& s = std::any_cast<const TraceSummary&>(*m);
  BrowseTree& tree = session_.tree();
  const Trace& t = session_.trace();
  if (s.slowest_kernel) {
    const SlowestKernel& k = *s.slowest_kernel;
    go_to_row(tree.row_of_node(k.kernel));
    message_ = "slowest kernel launch: " + printable(t.name(t.nodes[k.kernel])) + " " +
               format_duration(k.gpu_ns);
    return;
  }
  // No kernels: the entry with the most time of its own.
  uint32_t best = kNoRow;
  for (uint32_t e = 1; e < tree.aggregate().nodes.size(); ++e)
    if (tree.aggregate().nodes[e].first != kNoNode &&
        (best == kNoRow ||
         tree.aggregate().nodes[e].self_ns > tree.aggregate().nodes[best].self_ns))
      best = e;
  if (best == kNoRow) return;
  go_to_row(best);
  message_ = "no kernels; most time of its own: " + tree.label(best) + " " +
             format_duration(tree.aggregate().nodes[best].self_ns);
}

// c / C: the entries of the critical path's steps in time order; a run of
// steps in one entry is one stop.
void Browser::next_on_path(bool forward) {
  std::string error;
  const CriticalPathReport* cp = session_.critical_path(&error);
  if (!cp) {
    message_ = "no critical path: " + error;
    message_style_ = Style::kWarning;
    return;
  }
  if (!tree_at_hand()) return;
  const std::vector<PathStep>& steps = cp->path.steps;
  BrowseTree& tree = session_.tree();
  const uint32_t here = selected_row();
  auto row_at = [&](size_t i) {
    return steps[i].node == kNoNode ? kNoRow : tree.row_of_node(steps[i].node);
  };
  auto run_start = [&](size_t i) {
    const uint32_t r = row_at(i);
    return r != kNoRow && r != here && (i == 0 || row_at(i - 1) != r);
  };
  const size_t from = path_step_ < steps.size() ? path_step_ : forward ? steps.size() - 1 : 0;
  const size_t found = find_next(steps.size(), from, forward, run_start);
  if (found == SIZE_MAX) {
    message_ = "no other entry on the critical path";
    return;
  }
  path_step_ = found;
  go_to_row(row_at(found));
  message_ = "critical path step " + std::to_string(found + 1) + " of " +
             std::to_string(steps.size()) + ": " + tree.label(row_at(found)) + " adds " +
             format_duration(steps[found].duration_ns);
}

void Browser::search(bool forward, bool from_here) {
  if (match_.empty()) return;
  size_t found = SIZE_MAX;
  switch (current().kind) {
    case Tab::Kind::kTree: {
      if (!tree_at_hand()) return;
      BrowseTree& tree = session_.tree();
      const std::vector<uint32_t>& order = tree.preorder();
      const uint32_t here = selected_row();
      size_t from = 0;
      if (here != kNoRow)
        from = static_cast<size_t>(std::find(order.begin(), order.end(), here) - order.begin());
      if (from_here && here != kNoRow && match_.matches(tree.label(here))) return;
      found = find_next(order.size(), from, forward,
                        [&](size_t i) { return match_.matches(tree.label(order[i])); });
      if (found != SIZE_MAX) go_to_row(order[found]);
      break;
    }
    case Tab::Kind::kPath: {
      const CriticalPathReport* cp = session_.critical_path();
      if (!cp) return;
      found = find_next(cp->path.steps.size(), path_.cursor().selected, forward, [&](size_t i) {
        return match_.matches(printable(owner_label(session_.trace(), cp->path.steps[i].node)));
      });
      if (found != SIZE_MAX) path_.cursor().to(found, cp->path.steps.size());
      break;
    }
    case Tab::Kind::kRoofline:
      message_ = "search the tree or a text view; the roofline legend is short";
      return;
    default: {
      const Lines& lines = tab_lines(current());
      ListCursor& c = text_cursors_[tab_];
      found = find_next(lines.size(), c.top, forward,
                        [&](size_t i) { return match_.matches(lines[i].text()); });
      if (found != SIZE_MAX) {
        c.top = found;
        c.scroll(0, lines.size(), page());
      }
      break;
    }
  }
  if (found == SIZE_MAX) {
    message_ = "no match for '" + match_.pattern() + "'";
    message_style_ = Style::kWarning;
  }
}

void Browser::start_under() {
  std::string initial;
  // The selected scope's name, to accept with Enter.
  if (const uint32_t row = selected_row(); row != kNoRow) {
    const BrowseTree& tree = session_.tree();
    const uint32_t first = tree.is_ptx(row) ? kNoNode : tree.aggregate().nodes[row].first;
    const Trace& t = session_.trace();
    if (first != kNoNode && is_cpu_kind(t.nodes[first].kind)) initial = t.name(t.nodes[first]);
  }
  prompt_.open(Prompt::Purpose::kUnder, "under scopes named: ", initial, &session_.scope_names());
}

void Browser::start_what_if() {
  const uint32_t row = selected_row();
  if (row == kNoRow || session_.tree().is_ptx(row) ||
      session_.tree().aggregate().nodes[row].first == kNoNode) {
    message_ = "select a brick, scope or kernel first (in the tree or the critical path)";
    return;
  }
  const Node& n = session_.trace().nodes[session_.tree().aggregate().nodes[row].first];
  what_if_target_ = std::string(session_.trace().name(n));
  if (what_if_target_.empty()) {
    message_ = "what-if needs a named brick, scope or kernel";
    return;
  }
  prompt_.open(Prompt::Purpose::kWhatIf,
               "what if " + what_if_target_ + " ran K times faster? K = ", "2");
}

void Browser::prompt_done() {
  const std::string text = prompt_.text();
  switch (prompt_.purpose()) {
    case Prompt::Purpose::kSearch:
      match_ = Matcher(text);
      last_search_ = text;
      if (!text.empty()) search(true, true);
      return;
    case Prompt::Purpose::kUnder: {
      if (text.empty()) return;
      if (!session_.set_under(text)) {
        message_ = "no scope named '" + text + "'" +
                   (session_.rank() >= 0 ? " on " + session_.rank_label() : "");
        message_style_ = Style::kWarning;
        return;
      }
      reset_after_change();
      message_ = "under \"" + text + "\": " + std::to_string(session_.under_scopes()) +
                 " scopes, " + std::to_string(session_.trace().nodes.size()) + " of " +
                 std::to_string(session_.whole().nodes.size()) + " nodes";
      return;
    }
    case Prompt::Purpose::kWhatIf: {
      WhatIfSpec spec;
      try {
        spec = parse_what_if_spec(what_if_target_ + "=" + text);
      } catch (const ViewError&) {
        message_ = "K must be a positive number, such as 2 or 1.5";
        message_style_ = Style::kWarning;
        return;
      }
      std::string error;
      const WhatIf* w = session_.add_what_if(spec.name, spec.factor, &error);
      detail_row_ = UINT32_MAX;
      if (!w) {
        message_ = "no critical path: " + error;
        message_style_ = Style::kWarning;
        return;
      }
      message_ =
          "what-if " + w->target + " " + times(w->factor) + " faster: critical path " +
          format_duration(w->before_ns) + " → " + format_duration(w->after_ns) + " (−" +
          format_duration(w->saved_ns()) + ", −" +
          format_share(static_cast<double>(w->saved_ns()), static_cast<double>(w->before_ns)) + ")";
      message_style_ = Style::kWarning;
      return;
    }
  }
}

void Browser::next_rank() {
  if (session_.rank_count() == 0) {
    message_ = "not a merged trace: one process, no ranks";
    return;
  }
  session_.set_rank(session_.rank() + 1);
  reset_after_change();
  if (session_.rank() < 0) {
    message_ = "all " + std::to_string(session_.rank_count()) + " ranks";
    return;
  }
  const ProcessInfo& p = session_.whole().sources[static_cast<size_t>(session_.rank())].process;
  message_ = printable(session_.rank_label()) + ": " + printable(p.program) + " (pid " +
             std::to_string(p.pid) + (p.host.empty() ? "" : " on " + printable(p.host)) + ")";
}

}  // namespace brickprof::view
