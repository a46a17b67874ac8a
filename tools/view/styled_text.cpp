// Styled lines (see styled_text.h).
#include "tools/view/styled_text.h"

#include <algorithm>

namespace brickprof::view {
namespace {

bool is_rule(std::string_view line) {
  if (line.size() < 3) return false;
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '-') {
      ++i;
    } else if (line.compare(i, 3, "─") == 0) {
      i += 3;
    } else {
      return false;
    }
  }
  return true;
}

// A heading: flush left and either a title ("Roofline", "Critical Path: 1.2ms
// (...)") or a section ("Per-brick timing:").
bool is_heading(std::string_view line) {
  if (line.empty() || line[0] == ' ' || line.find("  ") != std::string_view::npos) return false;
  if (line.back() == ':') return true;
  size_t colon = line.find(':');
  std::string_view head = line.substr(0, colon);
  return head == "Roofline" || head == "Critical Path" || head == "Kernel launches" ||
         head == "GPU idle" || head == "Transfers" || head == "Trace" || head == "Diff" ||
         head.rfind("Transfers (", 0) == 0 || head == "Trace analysis";
}

}  // namespace

std::string Line::text() const {
  std::string s;
  for (const Span& span : spans) s += span.text;
  return s;
}

Lines report_lines(std::string_view text) {
  std::vector<std::string_view> raw;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    raw.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  Lines lines;
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string_view l = raw[i];
    Style style = Style::kNormal;
    if (is_rule(l)) {
      style = Style::kDim;
    } else if (i + 1 < raw.size() && is_rule(raw[i + 1])) {
      style = Style::kHeader;  // a table's column names
    } else if (l.rfind("REGRESSION", 0) == 0) {
      style = Style::kRegression;
    } else if (l.find("same name, different code") != std::string_view::npos) {
      style = Style::kChanged;
    } else if (l.find("warning:") != std::string_view::npos || l.find("UNBALANCED") != l.npos) {
      style = Style::kWarning;
    } else if (is_heading(l)) {
      style = Style::kBold;
    }
    lines.emplace_back().add(std::string(l), style);
  }
  return lines;
}

Lines plain_lines(std::string_view text, Style style) {
  Lines lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string line;
    for (char c : text.substr(at, end - at)) {
      if (c == '\t')
        line.append(8 - line.size() % 8, ' ');
      else if (c != '\r')
        line.push_back(c);
    }
    lines.emplace_back().add(std::move(line), style);
    at = end + 1;
  }
  return lines;
}

Lines wrap_lines(const Lines& lines, int width, int indent, bool ascii) {
  Lines out;
  indent = std::min(indent, width / 2);
  for (const Line& line : lines) {
    Line* current = &out.emplace_back();
    int column = 0;
    for (const Span& span : line.spans) {
      std::string_view text = span.text;
      while (!text.empty()) {
        // The next word with the spaces before it.
        size_t end = text.find_first_not_of(' ');
        end = end == std::string_view::npos ? text.size() : text.find(' ', end);
        if (end == std::string_view::npos) end = text.size();
        std::string_view word = text.substr(0, end);
        const int w = display_width(word, ascii);
        if (column > indent && column + w > width) {
          current = &out.emplace_back();
          current->add(std::string(static_cast<size_t>(indent), ' '));
          column = indent;
          word.remove_prefix(std::min(word.find_first_not_of(' '), word.size()));
        }
        current->add(std::string(word), span.style);
        column += display_width(word, ascii);
        text.remove_prefix(end);
      }
    }
  }
  return out;
}

void draw_lines(Canvas& canvas, Rect r, const Lines& lines, size_t top, const Matcher* match,
                int left) {
  for (int y = 0; y < r.h; ++y) {
    canvas.fill(r.x, r.y + y, r.w, Style::kNormal);
    const size_t i = top + static_cast<size_t>(y);
    if (i >= lines.size()) continue;
    int x = r.x;
    int skip = left;  // columns still to hide, left of the window
    for (const Span& span : lines[i].spans) {
      const std::string_view text = span.text;
      const int hidden_before = skip;
      const std::string_view shown = drop_columns(text, skip, canvas.ascii());
      const int hidden = hidden_before - skip;  // this span's columns left of the window
      const int start = x;
      x += canvas.put(x, r.y + y, shown, span.style, r.right() - x);
      if (!match || match->empty() || shown.empty()) continue;
      // Mark each match: its columns are those of the text before it.
      for (size_t at = match->find(text); at != std::string_view::npos;) {
        const int col = display_width(text.substr(0, at), canvas.ascii()) - hidden;
        const int width = display_width(text.substr(at, match->pattern().size()), canvas.ascii());
        const int from = start + std::max(0, col);
        if (from >= r.right()) break;
        const int visible = width + std::min(0, col);
        if (visible > 0)
          canvas.restyle(from, r.y + y, std::min(visible, r.right() - from), Style::kMatch);
        const size_t next = match->find(text.substr(at + 1));
        at = next == std::string_view::npos ? next : at + 1 + next;
      }
    }
  }
}

}  // namespace brickprof::view
