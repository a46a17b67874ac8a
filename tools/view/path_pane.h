// The critical-path pane: the path's length (and the what-ifs' new
// lengths), then its steps in time order, one line each with when it
// starts on the path, how long it adds, a bar, its lane and its name.
// Enter shows the selected step's entry in the tree. Drawn from the
// critical-path view's model (analysis/analyses/critical_path.h).
#pragma once

#include <vector>

#include "analysis/analyses/critical_path.h"
#include "tools/view/canvas.h"
#include "tools/view/list_cursor.h"
#include "tools/view/session.h"

namespace brickprof::view {

class PathPane {
 public:
  ListCursor& cursor() { return cursor_; }
  // The trace node of the selected step (kNoNode for untracked time).
  uint32_t selected_node(const CriticalPathReport& path) const;
  void draw(Canvas& canvas, Rect r, Session& session, const CriticalPathReport& path);
  // Lines above the steps (for page sizes).
  static constexpr int kHeaderLines = 3;

 private:
  ListCursor cursor_;
  const CriticalPathReport* starts_of_ = nullptr;
  std::vector<int64_t> starts_;  // per step: its start on the path
};

std::string lane_label(const Lane& lane);
// A bar of `fraction` (0..1) of `width` cells, in eighths of a cell.
std::string bar_text(double fraction, int width);

}  // namespace brickprof::view
