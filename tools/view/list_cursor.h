// A selection in a list longer than its window: which item is selected
// and which is the first one shown, kept so the selection stays visible.
// The tree, the critical path, the text views and the detail pane all
// scroll with it.
#pragma once

#include <algorithm>
#include <cstddef>

namespace brickprof::view {

struct ListCursor {
  size_t selected = 0;
  size_t top = 0;  // first item in the window

  // Moves the selection by `delta` items among `count`, clamped.
  void move(long delta, size_t count) {
    if (count == 0) {
      selected = top = 0;
      return;
    }
    long to = static_cast<long>(selected) + delta;
    selected = static_cast<size_t>(std::clamp(to, 0L, static_cast<long>(count) - 1));
  }
  void to(size_t item, size_t count) {
    move(static_cast<long>(item) - static_cast<long>(selected), count);
  }
  // Scrolls so the selection is inside a window of `height` items; when it
  // has to scroll, keeps `margin` items of context around it.
  void follow(size_t count, size_t height, size_t margin = 0) {
    if (count == 0 || height == 0) {
      top = 0;
      return;
    }
    selected = std::min(selected, count - 1);
    margin = std::min(margin, (height - 1) / 2);
    if (selected < top + margin) top = selected > margin ? selected - margin : 0;
    if (selected + margin >= top + height) top = selected + margin + 1 - height;
    top = std::min(top, count > height ? count - height : 0);
  }
  // For panes without a selection (a text): scrolls the window itself.
  void scroll(long delta, size_t count, size_t height) {
    long max_top = count > height ? static_cast<long>(count - height) : 0;
    top = static_cast<size_t>(std::clamp(static_cast<long>(top) + delta, 0L, max_top));
    selected = top;
  }
};

}  // namespace brickprof::view
