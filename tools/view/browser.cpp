// What each key does (see browser.h); the drawing is in browser_draw.cpp.
#include "tools/view/browser.h"

#include <algorithm>

#include "tools/view/keys.h"

namespace brickprof::view {
namespace {

constexpr int kSideStep = 8;  // columns per Left/Right in a text view

}  // namespace

Browser::Browser(Session& session, int width, int height) : session_(session) {
  tabs_ = {
      {Tab::Kind::kTree, "Tree", "Tree"},
      {Tab::Kind::kReport, "Summary", "Summary", "summary"},
      {Tab::Kind::kPath, "Critical path", "Path"},
      {Tab::Kind::kRoofline, "Roofline", "Roofline"},
      {Tab::Kind::kReport, "GPU idle", "Idle", "gpu-idle"},
      {Tab::Kind::kReport, "Launches", "Launches", "launches"},
      {Tab::Kind::kReport, "Transfers", "Transfers", "transfers"},
      {Tab::Kind::kReport, "Analyzer", "Analyzer", "analyze"},
  };
  if (!session_.whole().memory.empty())
    tabs_.push_back({Tab::Kind::kReport, "Memory", "Mem", "memory"});
  if (!session_.whole().tiles.empty())
    tabs_.push_back({Tab::Kind::kReport, "Tiles", "Tiles", "tiles"});
  if (!session_.whole().counters.empty())  // what the program reported: report --tokens
    tabs_.push_back({Tab::Kind::kReport, "Tokens", "Tok", "tokens"});
  if (session_.whole().diagnostics.cpu_counters != "off")  // counted, or why not
    tabs_.push_back({Tab::Kind::kReport, "CPU counters", "CPU", "cpu-counters"});
  if (session_.whole().diagnostics.gpu_metrics != "off")  // collected, or why not
    tabs_.push_back({Tab::Kind::kReport, "GPU metrics", "GPUm", "gpu-metrics"});
  if (session_.has_base()) tabs_.push_back({Tab::Kind::kDiff, "Diff", "Diff"});
  if (session_.rank_count() > 0) tabs_.push_back({Tab::Kind::kRanks, "Ranks", "Ranks"});
  if (session_.rank_count() > 1) {  // the cross-rank views of a merged job
    tabs_.push_back({Tab::Kind::kReport, "Rank time", "Time", "ranks"});
    tabs_.push_back({Tab::Kind::kReport, "Collectives", "Coll", "collectives"});
    tabs_.push_back({Tab::Kind::kReport, "Imbalance", "Imbal", "imbalance"});
    tabs_.push_back({Tab::Kind::kReport, "Rank path", "RPath", "rank-path"});
  }
  layout_ = layout_for(width, height, false);
  fit_tree();
}

// The first screen of a tree shows as much of it as fits.
void Browser::fit_tree() {
  if (tree_fitted_ || !session_.tree_ready()) return;
  session_.tree().expand_to_fit(static_cast<size_t>(std::max(1, layout_.main.h - 1)));
  tree_fitted_ = true;
}

bool Browser::tree_at_hand() {
  if (session_.tree_ready()) return true;
  message_ = "the tree is still being built: a moment";
  return false;
}

std::vector<KeyScope> Browser::scopes() const {
  switch (current().kind) {
    case Tab::Kind::kTree:
      return {KeyScope::kTree, KeyScope::kGlobal};
    case Tab::Kind::kPath:
      return {KeyScope::kList, KeyScope::kGlobal};
    case Tab::Kind::kRoofline:
      return {KeyScope::kRoofline, KeyScope::kGlobal};
    default:
      return {KeyScope::kText, KeyScope::kGlobal};
  }
}

size_t Browser::page() const {
  const int lines = current().kind == Tab::Kind::kPath ? layout_.main.h - PathPane::kHeaderLines
                                                       : layout_.main.h - 1;
  return static_cast<size_t>(std::max(1, lines));
}

void Browser::key(int k) {
  if (k == key::kNone || k == key::kResize) return;
  message_style_ = Style::kStatus;
  if (prompt_.active()) {
    const Prompt::Purpose purpose = prompt_.purpose();
    const Prompt::Result r = prompt_.key(k);
    if (r == Prompt::Result::kDone) prompt_done();
    if (r == Prompt::Result::kCancelled) {
      message_.clear();
      if (purpose == Prompt::Purpose::kSearch) {  // back where the search started, as in vim
        match_ = Matcher(last_search_);
        tree_cursor_ = search_origin_.tree;
        path_.cursor() = search_origin_.path;
        text_cursors_[tab_] = search_origin_.text;
      }
    }
    if (purpose == Prompt::Purpose::kSearch && r == Prompt::Result::kEditing) {
      match_ = Matcher(prompt_.text());  // matches show as you type
      search(true, true);
    }
    return;
  }
  message_.clear();
  if (help_) {
    const Action a = action_for(k, {KeyScope::kGlobal});
    if (a == Action::kDown || a == Action::kUp || a == Action::kPageDown || a == Action::kPageUp) {
      const long step = a == Action::kDown       ? 1
                        : a == Action::kUp       ? -1
                        : a == Action::kPageDown ? 10
                                                 : -10;
      help_cursor_.scroll(step, help_lines_, static_cast<size_t>(help_height_));
    } else {
      help_ = false;
    }
    return;
  }
  act(action_for(k, scopes()), k);
}

void Browser::act(Action a, int k) {
  switch (a) {
    case Action::kQuit:
      quit_ = true;
      return;
    case Action::kHelp:
      help_ = true;
      help_cursor_ = {};
      return;
    case Action::kTab:
      set_tab(k == '0' ? 9 : static_cast<size_t>(k - '1'));
      return;
    case Action::kNextTab:
      set_tab((tab_ + 1) % tabs_.size());
      return;
    case Action::kPrevTab:
      set_tab((tab_ + tabs_.size() - 1) % tabs_.size());
      return;
    case Action::kUp:
    case Action::kDown:
    case Action::kPageUp:
    case Action::kPageDown:
    case Action::kTop:
    case Action::kBottom:
      move(a);
      return;
    case Action::kSearch:
      search_origin_ = {tree_cursor_, path_.cursor(), text_cursors_[tab_]};
      prompt_.open(Prompt::Purpose::kSearch, "/", "");
      return;
    case Action::kNextMatch:
    case Action::kPrevMatch:
      if (match_.empty())
        message_ = "no search yet: / searches";
      else
        search(a == Action::kNextMatch, false);
      return;
    case Action::kDetail:
      detail_ = !detail_;
      detail_cursor_ = {};
      return;
    case Action::kDetailDown:
    case Action::kDetailUp:
      if (!detail_) detail_ = true;
      detail_cursor_.scroll(a == Action::kDetailDown ? 1 : -1, detail_lines_.size(),
                            static_cast<size_t>(std::max(1, layout_.detail.h - 1)));
      return;
    case Action::kUnder:
      start_under();
      return;
    case Action::kClearUnder:
      if (session_.under().empty()) {
        message_ = "showing the whole trace already";
        return;
      }
      session_.set_under("");
      reset_after_change();
      message_ = "the whole trace again";
      return;
    case Action::kWhatIf:
      start_what_if();
      return;
    case Action::kClearWhatIf:
      session_.clear_what_ifs();
      detail_row_ = UINT32_MAX;
      message_ = "what-ifs forgotten";
      return;
    case Action::kRank:
      next_rank();
      return;
    case Action::kShowInTree: {
      std::string error;
      const CriticalPathReport* cp = session_.critical_path(&error);
      const uint32_t node = cp ? path_.selected_node(*cp) : kNoNode;
      if (node == kNoNode) {
        message_ = "untracked CPU time is not in the tree";
        return;
      }
      set_tab(0);
      go_to_row(session_.tree().row_of_node(node));
      return;
    }
    case Action::kScrollLeft:
    case Action::kScrollRight: {
      int& left = text_left_[tab_];
      left = std::max(0, left + (a == Action::kScrollRight ? kSideStep : -kSideStep));
      return;
    }
    case Action::kRoofDevice:
      roofline_.next_device();
      roofline_.cursor() = {};
      return;
    case Action::kRoofKind:
      roofline_.next_kinds();
      roofline_.cursor() = {};
      return;
    case Action::kRedraw:
    case Action::kNone:
      return;
    default:
      tree_key(a);
      return;
  }
}

void Browser::set_tab(size_t tab) {
  if (tab >= tabs_.size()) {
    message_ = "no view " + std::to_string(tab + 1) + " here";
    return;
  }
  tab_ = tab;
  detail_row_ = UINT32_MAX;
}

// Moves the current pane's selection (or scrolls a text).
void Browser::move(Action a) {
  const long pg = static_cast<long>(page());
  const long delta = a == Action::kUp         ? -1
                     : a == Action::kDown     ? 1
                     : a == Action::kPageUp   ? -pg
                     : a == Action::kPageDown ? pg
                     : a == Action::kTop      ? -(1L << 40)
                                              : (1L << 40);
  switch (current().kind) {
    case Tab::Kind::kTree:
      if (tree_at_hand()) tree_cursor_.move(delta, session_.tree().visible().size());
      break;
    case Tab::Kind::kPath:
      if (const CriticalPathReport* cp = session_.critical_path())
        path_.cursor().move(delta, cp->path.steps.size());
      break;
    case Tab::Kind::kRoofline:
      if (const ViewModel* m = session_.model("roofline"))
        roofline_.cursor().move(delta, roofline_.count(std::any_cast<const Roofline&>(*m)));
      break;
    default:
      text_cursors_[tab_].scroll(delta, tab_lines(current()).size(), page());
      break;
  }
  detail_cursor_ = {};
}

// After the rank or the scopes changed, every model is new.
void Browser::reset_after_change() {
  tree_cursor_ = {};
  path_ = {};
  roofline_ = {};
  text_cursors_.clear();
  text_lines_.clear();
  text_left_.clear();
  detail_row_ = UINT32_MAX;
  detail_cursor_ = {};
  path_step_ = SIZE_MAX;
  // The whole trace's tree comes back as it was left: sorted, expanded.
  sort_ = sort_position(session_.tree().sort_key());
  tree_fitted_ = false;
  fit_tree();
}

}  // namespace brickprof::view
