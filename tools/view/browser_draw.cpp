// Drawing the browser's screen (see browser.h): title, tabs, the view, the
// detail pane, the status line, the help, and the too-small notice.
#include <algorithm>
#include <sstream>

#include "analysis/analyses/roofline.h"
#include "tools/view/browser.h"
#include "tools/view/detail.h"
#include "tools/view/ranks.h"
#include "tools/view/tree_pane.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/model/recorded.h"

namespace brickprof::view {
namespace {

// The status line's key hints: the most used keys, htop style.
struct Hint {
  const char* key;
  const char* what;
};
constexpr Hint kTreeHints[] = {{"?", "Help"},    {"/", "Search"}, {"d", "Detail"}, {"s", "Sort"},
                               {"S", "Slowest"}, {"c", "Path"},   {"u", "Under"},  {"w", "What-if"},
                               {"Tab", "Views"}, {"q", "Quit"}};
constexpr Hint kPathHints[] = {{"?", "Help"},    {"Enter", "Tree"}, {"/", "Search"},
                               {"d", "Detail"},  {"w", "What-if"},  {"W", "Forget"},
                               {"Tab", "Views"}, {"q", "Quit"}};
constexpr Hint kRooflineHints[] = {{"?", "Help"},   {"j/k", "Select"}, {"b", "Bricks/kernels"},
                                   {"]", "Device"}, {"Tab", "Views"},  {"q", "Quit"}};
constexpr Hint kTextHints[] = {{"?", "Help"},  {"/", "Search"},  {"n", "Next"}, {"h/l", "Scroll"},
                               {"u", "Under"}, {"Tab", "Views"}, {"1", "Tree"}, {"q", "Quit"}};

std::string computing(const char* what) { return std::string("computing ") + what + "..."; }

constexpr int kDetailIndent = 14;  // wrapped detail lines go on past the labels

}  // namespace

// What the main pane waits for, or "".
std::string Browser::main_pending() const {
  if (!session_.tree_built() && session_.tree_ready()) return "the tree";
  const Tab& t = current();
  switch (t.kind) {
    case Tab::Kind::kReport:
      if (!session_.computed(t.view)) return std::string("the ") + t.title + " view";
      break;
    case Tab::Kind::kPath:
      if (!session_.computed("critical-path")) return "the critical path";
      break;
    case Tab::Kind::kRoofline:
      if (!session_.computed("roofline")) return "the roofline";
      break;
    case Tab::Kind::kDiff:
      if (!session_.diff_computed()) return "the diff";
      break;
    case Tab::Kind::kRanks:
      if (!session_.rank_summaries_computed()) return "each rank's summary";
      break;
    case Tab::Kind::kTree:
      break;
  }
  return {};
}

// The detail pane reads these models (detail.cpp).
std::string Browser::detail_pending() const {
  if (!detail_ || (current().kind != Tab::Kind::kTree && current().kind != Tab::Kind::kPath))
    return {};
  for (const char* view : {"critical-path", "summary", "roofline", "launches"})
    if (!session_.computed(view)) return "the details";
  if (session_.has_base() && !session_.diff_computed()) return "the details";
  return {};
}

std::string Browser::pending() const {
  if (layout_.too_small) return {};
  std::string what = main_pending();
  return what.empty() ? detail_pending() : what;
}

void Browser::draw(Canvas& canvas, bool compute) {
  const bool detail_here =
      detail_ && (current().kind == Tab::Kind::kTree || current().kind == Tab::Kind::kPath);
  layout_ = layout_for(canvas.width(), canvas.height(), detail_here);
  if (compute) fit_tree();  // a tree built on its thread since the last frame
  for (int y = 0; y < canvas.height(); ++y) canvas.fill(0, y, canvas.width(), Style::kNormal);
  if (layout_.too_small) {
    draw_too_small(canvas);
    return;
  }
  draw_tabs(canvas, layout_.tabs);
  draw_main(canvas, layout_.main, compute);
  if (layout_.detail.h > 0) draw_detail(canvas, layout_.detail, compute);
  draw_title(canvas, layout_.title);  // after the panes: it says the verdict they computed
  if (!compute && message_.empty()) {
    const std::string what = pending();
    if (!what.empty()) {
      canvas.fill(0, layout_.status.y, canvas.width(), Style::kStatus);
      canvas.put(1, layout_.status.y, "computing " + what + "...", Style::kStatus);
      if (help_) draw_help(canvas);
      return;
    }
  }
  draw_status(canvas, layout_.status);
  if (help_) draw_help(canvas);
}

void Browser::draw_title(Canvas& canvas, Rect r) {
  canvas.fill(r.x, r.y, r.w, Style::kTitle);
  const Trace& t = session_.whole();
  const ProcessInfo& p = t.process;
  std::string text =
      " brickprof view  " + printable(p.program.empty() ? session_.file() : p.program);
  if (t.sources.empty())
    text +=
        " (pid " + std::to_string(p.pid) + (p.host.empty() ? "" : " on " + printable(p.host)) + ")";
  else
    text += " (" + std::to_string(t.sources.size()) + " ranks merged)";
  text += "  " + format_duration(session_.run_ns()) + "  ";
  // The words of report's summary line.
  text += t.nodes.empty() ? "nothing recorded"
          : session_.has_gpu_work()
              ? std::to_string(t.nodes.size()) + " nodes (each a recorded scope or GPU operation)"
              : std::to_string(t.nodes.size()) + " nodes (each a recorded scope)";
  // What the panes are restricted to, at the right, where it is seen.
  std::string scope;
  if (session_.rank() >= 0) scope += "[" + printable(session_.rank_label()) + "] ";
  if (!session_.under().empty())
    scope += "[under \"" + printable(session_.under()) +
             "\": " + std::to_string(session_.trace().nodes.size()) + " nodes] ";
  if (session_.has_base()) {
    // The gate's verdict once the diff is in (the tree's column computes it).
    scope += "[vs " + printable(session_.base_file());
    if (session_.diff_computed())
      scope += !session_.diff() ? ": no verdict" : session_.diff()->failed() ? ": FAIL" : ": PASS";
    scope += "] ";
  }
  const int scope_w = display_width(scope, canvas.ascii());
  canvas.put(r.x, r.y, text, Style::kTitle, r.w - scope_w - 1);
  if (!scope.empty()) canvas.put(r.right() - scope_w, r.y, scope, Style::kTitle);
}

// The tabs, as wide as fits: " 1 Critical path ", else short titles
// (" 3 Path"), else the key alone for all but the view shown. Tabs past
// the tenth have no digit key (Tab reaches them).
void Browser::draw_tabs(Canvas& canvas, Rect r) {
  canvas.fill(r.x, r.y, r.w, Style::kTab);
  auto width = [&](int level) {
    int w = 0;
    for (size_t i = 0; i < tabs_.size(); ++i) {
      const char* title = level == 0 ? tabs_[i].title : tabs_[i].short_title;
      w += (i < 10 ? 2 : 0) + (level == 2 && i != tab_ ? 0 : 1 + display_width(title)) +
           (level == 0 ? 1 : 0);
    }
    return w;
  };
  const int level = width(0) <= r.w ? 0 : width(1) <= r.w ? 1 : 2;
  int x = r.x;
  for (size_t i = 0; i < tabs_.size() && x < r.right(); ++i) {
    const bool active = i == tab_;
    if (i < 10)
      x += canvas.put(x, r.y, " " + std::to_string((i + 1) % 10),
                      active ? Style::kTabActive : Style::kKey, r.right() - x);
    if (level == 2 && !active) continue;
    std::string title = std::string(" ") + (level == 0 ? tabs_[i].title : tabs_[i].short_title);
    if (level == 0) title += ' ';
    x += canvas.put(x, r.y, title, active ? Style::kTabActive : Style::kTab, r.right() - x);
  }
}

const Lines& Browser::tab_lines(const Tab& tab) {
  auto it = text_lines_.find(tab_);
  if (it != text_lines_.end()) return it->second;
  Lines lines;
  switch (tab.kind) {
    case Tab::Kind::kReport: {
      std::string text = session_.text(tab.view);
      if (!session_.under().empty())
        text = "Under \"" + session_.under() + "\": " + std::to_string(session_.under_scopes()) +
               " scopes, " + std::to_string(session_.trace().nodes.size()) + " of " +
               std::to_string(session_.whole().nodes.size()) + " nodes\n\n" + text;
      lines = report_lines(text);
      break;
    }
    case Tab::Kind::kDiff: {
      std::ostringstream out;
      out << "Diff: " << printable(session_.base_file()) << " (base) -> "
          << printable(session_.file()) << '\n';
      if (const TraceDiff* d = session_.diff()) {
        if (!session_.under().empty())
          out << "Under \"" << printable(session_.under()) << "\" in both traces\n";
        out << '\n';
        diff_text(*d, out);
        if (const OutputDiff* o = session_.output_diff()) {
          out << "\nOutputs (as diff --outputs, default tolerances):\n";
          output_diff_text(*o, out);
        }
      } else {
        out << '\n'
            << printable(session_.diff_problem())
            << "\nNo verdict: diff --under compares only traces that both have the scopes (U "
               "shows the whole traces).\n";
      }
      lines = report_lines(out.str());
      break;
    }
    case Tab::Kind::kRanks:
      lines = ranks_lines(session_);
      break;
    default:
      break;
  }
  return text_lines_[tab_] = std::move(lines);
}

void Browser::draw_main(Canvas& canvas, Rect r, bool compute) {
  const Tab& tab = current();
  auto placeholder = [&](const std::string& text) {
    canvas.put(r.x + 2, r.y + 1, text, Style::kDim, r.w - 4);
  };
  if (!compute && !main_pending().empty()) {
    placeholder(computing(tab.title));
    return;
  }
  switch (tab.kind) {
    case Tab::Kind::kTree:
      if (!session_.tree_ready()) {
        // The summary meanwhile, which is at hand.
        canvas.put(r.x + 1, r.y,
                   "Building the tree of " + std::to_string(session_.trace().nodes.size()) +
                       " nodes... the other views are ready (Tab)",
                   Style::kWarning, r.w - 2);
        draw_lines(canvas, Rect{r.x, r.y + 2, r.w, r.h - 2}, report_lines(session_.text("summary")),
                   0);
        return;
      }
      if (session_.tree().empty()) {
        Lines nothing;
        nothing.emplace_back().add(printable(nothing_recorded_line(session_.trace())));
        draw_lines(canvas, Rect{r.x + 2, r.y + 1, r.w - 4, r.h - 1},
                   wrap_lines(nothing, r.w - 4, 0, canvas.ascii()), 0);
        return;
      }
      draw_tree(canvas, r, session_, tree_cursor_, match_);
      return;
    case Tab::Kind::kPath: {
      std::string error;
      if (const CriticalPathReport* cp = session_.critical_path(&error))
        path_.draw(canvas, r, session_, *cp);
      else
        placeholder("No critical path: " + session_.file() + ": " + error);
      return;
    }
    case Tab::Kind::kRoofline: {
      std::string error;
      if (const ViewModel* m = session_.model("roofline", &error))
        roofline_.draw(canvas, r, session_.trace(), std::any_cast<const Roofline&>(*m));
      else
        placeholder(error);
      return;
    }
    default: {
      const Lines& lines = tab_lines(tab);
      ListCursor& c = text_cursors_[tab_];
      c.scroll(0, lines.size(), static_cast<size_t>(r.h));
      // Not past the longest line.
      int widest = 0;
      for (const Line& l : lines)
        widest = std::max(widest, display_width(l.text(), canvas.ascii()));
      int& left = text_left_[tab_];
      left = std::clamp(left, 0, std::max(0, widest - r.w + 1));
      draw_lines(canvas, r, lines, c.top, &match_, left);
      return;
    }
  }
}

void Browser::draw_detail(Canvas& canvas, Rect r, bool compute) {
  canvas.fill(r.x, r.y, r.w, Style::kHeader);
  canvas.put(r.x + 1, r.y, "Detail", Style::kHeader);
  canvas.put_right(r.x, r.y, r.w - 1, "J/K scroll  d close", Style::kHeader);
  const Rect body{r.x, r.y + 1, r.w, r.h - 1};
  for (int y = body.y; y < body.bottom(); ++y) canvas.fill(body.x, y, body.w, Style::kNormal);
  if (!compute && !pending().empty()) {
    canvas.put(r.x + 2, body.y, computing("the details"), Style::kDim);
    return;
  }
  const uint32_t row = selected_row();
  if (row == kNoRow) {
    canvas.put(r.x + 2, body.y,
               !session_.tree_ready() ? "Building the tree..."
               : current().kind == Tab::Kind::kPath
                   ? "Untracked CPU time: on a thread, outside every scope."
                   : "Nothing selected.",
               Style::kDim);
    return;
  }
  if (row != detail_row_ || body.w - 1 != detail_width_) {
    if (row != detail_row_) detail_cursor_ = {};
    detail_lines_ =
        wrap_lines(detail_lines(session_, row), body.w - 1, kDetailIndent, canvas.ascii());
    detail_row_ = row;
    detail_width_ = body.w - 1;
  }
  detail_cursor_.scroll(0, detail_lines_.size(), static_cast<size_t>(body.h));
  draw_lines(canvas, Rect{body.x + 1, body.y, body.w - 1, body.h}, detail_lines_,
             detail_cursor_.top, &match_);
}

void Browser::draw_status(Canvas& canvas, Rect r) {
  if (prompt_.active()) {
    prompt_.draw(canvas, r.y);
    return;
  }
  canvas.fill(r.x, r.y, r.w, Style::kStatus);
  if (!message_.empty()) {
    canvas.put(r.x + 1, r.y, message_, message_style_, r.w - 2);
    return;
  }
  // Where the selection is, at the right.
  std::string where;
  if (current().kind == Tab::Kind::kTree && session_.tree_ready() &&
      !session_.tree().visible().empty())
    where = std::to_string(tree_cursor_.selected + 1) + "/" +
            std::to_string(session_.tree().visible().size());
  const int where_w = static_cast<int>(where.size());
  int x = r.x;
  std::span<const Hint> hints = kTextHints;
  if (current().kind == Tab::Kind::kTree) hints = kTreeHints;
  if (current().kind == Tab::Kind::kPath) hints = kPathHints;
  if (current().kind == Tab::Kind::kRoofline) hints = kRooflineHints;
  for (const Hint& h : hints) {
    const int need =
        static_cast<int>(std::string_view(h.key).size() + std::string_view(h.what).size()) + 2;
    if (x + need > r.right() - where_w - 1) break;
    x += canvas.put(x, r.y, h.key, Style::kKey);
    x += canvas.put(x, r.y, std::string(h.what) + " ", Style::kStatus);
    ++x;
  }
  if (!where.empty()) canvas.put(r.right() - where_w - 1, r.y, where, Style::kStatus);
}

void Browser::draw_help(Canvas& canvas) {
  // The lines, from the key table itself.
  Lines lines;
  const char* headings[] = {"Everywhere", "Tree", "Critical path", "Roofline", "Text views"};
  for (KeyScope scope : {KeyScope::kTree, KeyScope::kList, KeyScope::kRoofline, KeyScope::kText,
                         KeyScope::kGlobal}) {
    lines.emplace_back().add(headings[static_cast<int>(scope)], Style::kBold);
    for (const Binding& b : key_bindings()) {
      if (b.scope != scope) continue;
      std::string keys;
      if (b.shown) {
        keys = b.shown;
      } else {
        for (int k : b.keys)
          if (k) keys += (keys.empty() ? "" : " ") + key_name(k);
      }
      lines.emplace_back()
          .add("  " + pad_right(keys, 12), Style::kKey)
          .add(" " + std::string(b.help));
    }
    lines.emplace_back();
  }
  lines.emplace_back()
      .add("Colours: ", Style::kDim)
      .add("layer ", Style::kLayer)
      .add("brick ", Style::kBrick)
      .add("scope ", Style::kScope)
      .add("kernel ", Style::kKernel)
      .add("transfer ", Style::kTransfer)
      .add("sync ", Style::kSync)
      .add("PTX", Style::kPtx);
  const int w = std::min(canvas.width() - 4, 86);
  const int h = std::min(canvas.height() - 2, static_cast<int>(lines.size()) + 2);
  const Rect box{(canvas.width() - w) / 2, (canvas.height() - h) / 2, w, h};
  help_lines_ = lines.size();
  help_height_ = h - 2;
  help_cursor_.scroll(0, help_lines_, static_cast<size_t>(help_height_));
  canvas.fill(box.x, box.y, box.w, Style::kTitle);
  canvas.put(box.x + 1, box.y, "brickprof view: keys", Style::kTitle);
  canvas.put_right(box.x, box.y, box.w - 1, "j/k scroll, any other key closes", Style::kTitle);
  // A frame of one column on each side, in the title's colour.
  for (int y = box.y + 1; y < box.bottom() - 1; ++y) {
    canvas.fill(box.x, y, 1, Style::kTitle);
    canvas.fill(box.right() - 1, y, 1, Style::kTitle);
  }
  draw_lines(canvas, Rect{box.x + 1, box.y + 1, box.w - 2, box.h - 2}, lines, help_cursor_.top);
  canvas.fill(box.x, box.bottom() - 1, box.w, Style::kTitle);
  const size_t shown_to =
      std::min(help_lines_, help_cursor_.top + static_cast<size_t>(help_height_));
  canvas.put_right(box.x, box.bottom() - 1, box.w - 1,
                   std::to_string(shown_to) + "/" + std::to_string(help_lines_), Style::kTitle);
}

// Wrapped to the screen, however narrow: the message is all there is.
void Browser::draw_too_small(Canvas& canvas) {
  Lines message;
  message.emplace_back().add("brickprof view needs a terminal of at least " +
                                 std::to_string(kMinWidth) + "x" + std::to_string(kMinHeight) + ";",
                             Style::kBold);
  message.emplace_back().add("this one is " + std::to_string(canvas.width()) + "x" +
                             std::to_string(canvas.height()) + ".");
  message.emplace_back().add("Make it larger, or press q to quit.");
  const Lines lines = wrap_lines(message, std::max(1, canvas.width() - 2), 0, canvas.ascii());
  const int y0 = std::max(0, (canvas.height() - static_cast<int>(lines.size())) / 2);
  for (size_t i = 0; i < lines.size() && y0 + static_cast<int>(i) < canvas.height(); ++i) {
    std::string text = lines[i].text();
    const int w = display_width(text, canvas.ascii());
    int x = std::max(0, (canvas.width() - w) / 2);
    for (const Span& span : lines[i].spans)
      x += canvas.put(x, y0 + static_cast<int>(i), span.text, span.style);
  }
}

}  // namespace brickprof::view
