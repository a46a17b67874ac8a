// Lines of styled text for the panes that show text (the detail pane, the
// report views), drawn in a rectangle from a scroll offset with search
// matches marked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/view/canvas.h"
#include "tools/view/search.h"

namespace brickprof::view {

struct Span {
  std::string text;
  Style style = Style::kNormal;
};

struct Line {
  std::vector<Span> spans;
  Line& add(std::string text, Style style = Style::kNormal) {
    spans.push_back({std::move(text), style});
    return *this;
  }
  std::string text() const;
};
using Lines = std::vector<Line>;

// A report view's text, one Line per line: headings bold, rules dim,
// regressions, changed code and warnings in their colours.
Lines report_lines(std::string_view text);
// Plain text (PTX), one Line per line, tabs expanded.
Lines plain_lines(std::string_view text, Style style = Style::kNormal);

// Lines no wider than `width` columns: a longer one is broken at spaces
// and goes on `indent` columns in (a word longer than a line is cut).
Lines wrap_lines(const Lines& lines, int width, int indent, bool ascii);

// Draws lines[top, top + r.h) into `r`, from column `left` of each line
// on; matches of `match` are marked.
void draw_lines(Canvas& canvas, Rect r, const Lines& lines, size_t top,
                const Matcher* match = nullptr, int left = 0);

}  // namespace brickprof::view
