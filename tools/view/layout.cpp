// The screen's layout (see layout.h).
#include "tools/view/layout.h"

#include <algorithm>

namespace brickprof::view {
namespace {

constexpr int kSideBySideWidth = 160;
constexpr int kSideDetailWidth = 64;
constexpr int kMinMainLines = 5;

}  // namespace

Layout layout_for(int width, int height, bool detail) {
  Layout l;
  l.too_small = width < kMinWidth || height < kMinHeight;
  l.title = {0, 0, width, 1};
  l.tabs = {0, 1, width, 1};
  l.status = {0, height - 1, width, 1};
  l.main = {0, 2, width, std::max(0, height - 3)};
  if (!detail || l.too_small) return l;
  if (width >= kSideBySideWidth) {
    l.detail = {width - kSideDetailWidth, l.main.y, kSideDetailWidth, l.main.h};
    l.main.w = width - kSideDetailWidth;
    return l;
  }
  const int lines = std::clamp(l.main.h * 2 / 5, 4, l.main.h - kMinMainLines);
  l.detail = {0, l.main.bottom() - lines, width, lines};
  l.main.h -= lines;
  return l;
}

}  // namespace brickprof::view
