// Where each part of the screen goes: the title line, the tab line, the
// view, the detail pane (below the view, or beside it on a wide terminal)
// and the status line; and the smallest terminal the browser draws in.
#pragma once

#include "tools/view/canvas.h"

namespace brickprof::view {

inline constexpr int kMinWidth = 60;
inline constexpr int kMinHeight = 15;

struct Layout {
  bool too_small = false;
  Rect title, tabs, main, detail, status;  // detail.h == 0 when the pane is off
};

// `detail`: the detail pane is open (it gets about 40% of the height, or a
// column of its own when the terminal is 160 columns or wider).
Layout layout_for(int width, int height, bool detail);

}  // namespace brickprof::view
