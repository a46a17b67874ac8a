// The browser draws into a Canvas (a grid of styled cells), never into the
// terminal itself: terminal.cpp copies a finished canvas to the screen, and
// tests read a canvas's rows as text. In ASCII mode every character written
// is made ASCII (µs -> us, × -> x, box lines -> | and -) so the screen is
// right on terminals without UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof::view {

// What a cell looks like; terminal.cpp maps each to colours and attributes
// (and to bold/reverse/underline alone without colour).
enum class Style : uint8_t {
  kNormal,
  kDim,
  kBold,
  kTitle,      // the top line
  kTab,        // a view's name in the tab line
  kTabActive,  // the view shown
  kHeader,     // column headings
  kThread,     // tree rows by kind
  kLayer,
  kBrick,
  kScope,
  kKernel,
  kTransfer,
  kSync,
  kPtx,
  kMatch,       // a search match in a row
  kRegression,  // slower beyond the diff's limits
  kImproved,
  kChanged,  // same name, different code
  kWarning,
  kKey,     // a key in the help or the key bar
  kStatus,  // the bottom line
  kPrompt,
  kBar,   // bars in tables
  kRoof,  // roofline roofs and axes
  kPoint,
  kCount,
};

struct Cell {
  char text[4] = {' ', 0, 0, 0};  // one UTF-8 character
  uint8_t size = 1;               // bytes in text; 0: right half of a wide character
  Style style = Style::kNormal;
  bool selected = false;  // the selection bar: drawn in the selection colour
};

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
  int right() const { return x + w; }
  int bottom() const { return y + h; }
};

class Canvas {
 public:
  Canvas(int width, int height, bool ascii);

  int width() const { return width_; }
  int height() const { return height_; }
  bool ascii() const { return ascii_; }
  const Cell& at(int x, int y) const { return cells_[static_cast<size_t>(y * width_ + x)]; }

  // Writes `text` (UTF-8) from (x, y) in `style`, at most `max` columns and
  // never past the right edge; returns the columns written. Control
  // characters, bidi overrides and broken UTF-8 show as '?', zero-width
  // ones are dropped.
  int put(int x, int y, std::string_view text, Style style, int max = 1 << 30);
  // Right-aligned in [x, x + w).
  void put_right(int x, int y, int w, std::string_view text, Style style);
  // Fills w cells with spaces in `style`.
  void fill(int x, int y, int w, Style style);
  // Marks w cells as selected (keeps their text and style).
  void select(int x, int y, int w);
  // Restyles w cells (keeps their text).
  void restyle(int x, int y, int w, Style style);

  // A row's text (UTF-8, or ASCII), trailing spaces kept: for tests.
  std::string row(int y) const;
  // Every row, one per line, trailing spaces removed.
  std::string text() const;

 private:
  Cell& cell(int x, int y) { return cells_[static_cast<size_t>(y * width_ + x)]; }
  int width_, height_;
  bool ascii_;
  std::vector<Cell> cells_;
};

// Display columns of a code point: 0 (combining, zero-width), 2 (East
// Asian wide, emoji) or 1.
int code_point_width(char32_t c);
// Columns `text` takes when put() (on an ASCII canvas when `ascii`).
int display_width(std::string_view text, bool ascii = false);
// `text` without its first `columns` columns (whole characters; a wide
// one cut in half goes); `columns` is decreased by the columns dropped.
std::string_view drop_columns(std::string_view text, int& columns, bool ascii);

}  // namespace brickprof::view
