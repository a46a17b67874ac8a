// The browser: the state of the screen (which view, what is selected, the
// detail pane, the prompt, the help) and what each key does to it. It
// draws into a Canvas and reads keys as ints, so it runs the same in a
// terminal (cmd_view.cpp, terminal.cpp) and in tests.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/view/canvas.h"
#include "tools/view/keymap.h"
#include "tools/view/layout.h"
#include "tools/view/list_cursor.h"
#include "tools/view/path_pane.h"
#include "tools/view/prompt.h"
#include "tools/view/roofline_plot.h"
#include "tools/view/search.h"
#include "tools/view/session.h"
#include "tools/view/styled_text.h"

namespace brickprof::view {

// One of the views one key away.
struct Tab {
  enum class Kind : uint8_t { kTree, kReport, kPath, kRoofline, kDiff, kRanks };
  Kind kind;
  const char* title;
  const char* short_title;     // for narrow terminals
  const char* view = nullptr;  // kReport: the registry view it shows
};

class Browser {
 public:
  Browser(Session& session, int width, int height);

  void key(int k);
  bool done() const { return quit_; }
  // What the next draw() must compute first ("the critical path"), or ""
  // when everything it shows is at hand: the caller draws a frame with
  // `draw(canvas, false)` saying so before the computing draw.
  std::string pending() const;
  // Draws the whole screen; with compute == false, panes whose models are
  // not computed yet say "computing".
  void draw(Canvas& canvas, bool compute = true);

  const std::vector<Tab>& tabs() const { return tabs_; }
  size_t tab() const { return tab_; }
  const std::string& message() const { return message_; }

 private:
  // Keys (browser.cpp; those that act on the data in browser_actions.cpp).
  std::vector<KeyScope> scopes() const;
  void act(Action a, int k);
  void move(Action a);
  void prompt_done();
  void search(bool forward, bool from_here);
  void tree_key(Action a);
  void go_to_row(uint32_t row);
  void next_on_path(bool forward);
  void slowest();
  void start_what_if();
  void start_under();
  void next_rank();
  void set_tab(size_t tab);
  void reset_after_change();
  uint32_t selected_row();
  const Tab& current() const { return tabs_[tab_]; }
  // False, and a message says so, while the tree is built on its thread.
  bool tree_at_hand();
  void fit_tree();
  static int sort_position(SortKey key);  // in the cycle of `s`
  size_t page() const;

  // Drawing (browser_draw.cpp).
  std::string main_pending() const;
  std::string detail_pending() const;
  void draw_title(Canvas& canvas, Rect r);
  void draw_tabs(Canvas& canvas, Rect r);
  void draw_main(Canvas& canvas, Rect r, bool compute);
  void draw_detail(Canvas& canvas, Rect r, bool compute);
  void draw_status(Canvas& canvas, Rect r);
  void draw_help(Canvas& canvas);
  void draw_too_small(Canvas& canvas);
  const Lines& tab_lines(const Tab& tab);

  Session& session_;
  std::vector<Tab> tabs_;
  size_t tab_ = 0;
  Layout layout_;
  bool quit_ = false;
  bool help_ = false;
  ListCursor help_cursor_;
  size_t help_lines_ = 0;  // as last drawn
  int help_height_ = 1;
  bool detail_ = false;
  ListCursor detail_cursor_;
  uint32_t detail_row_ = UINT32_MAX;
  int detail_width_ = 0;
  Lines detail_lines_;
  ListCursor tree_cursor_;
  PathPane path_;
  RooflinePlot roofline_;
  std::map<size_t, ListCursor> text_cursors_;  // per tab
  std::map<size_t, Lines> text_lines_;         // per tab, until the data changes
  std::map<size_t, int> text_left_;            // per tab: columns scrolled off the left
  Prompt prompt_;
  Matcher match_;
  std::string last_search_;
  struct {
    ListCursor tree, path, text;
  } search_origin_;  // where a search started: Esc goes back there
  std::string message_;
  Style message_style_ = Style::kStatus;
  std::string what_if_target_;
  size_t path_step_ = SIZE_MAX;  // the step c / C last went to
  int sort_ = 0;                 // index into the sort cycle
  bool tree_fitted_ = false;     // expand_to_fit done for this tree
};

}  // namespace brickprof::view
