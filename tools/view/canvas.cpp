// The cell grid (see canvas.h): UTF-8 decoding, display widths and the
// ASCII fallback of the characters brickprof itself prints.
#include "tools/view/canvas.h"

#include <algorithm>
#include <cstring>

namespace brickprof::view {
namespace {

constexpr char32_t kBad = U'?';

// Decodes one code point at text[i], advancing i; kBad for broken UTF-8.
char32_t decode(std::string_view text, size_t& i) {
  const auto b0 = static_cast<unsigned char>(text[i++]);
  if (b0 < 0x80) return b0;
  int extra = b0 >= 0xF0 && b0 < 0xF8 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC2 && b0 < 0xE0 ? 1 : -1;
  if (extra < 0) return kBad;
  char32_t c = b0 & (0x3F >> extra);
  for (int k = 0; k < extra; ++k) {
    if (i >= text.size() || (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return kBad;
    c = (c << 6) | (static_cast<unsigned char>(text[i++]) & 0x3F);
  }
  const char32_t least[] = {0, 0x80, 0x800, 0x10000};
  if (c < least[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return kBad;
  return c;
}

size_t encode(char32_t c, char* out) {
  if (c < 0x80) {
    out[0] = static_cast<char>(c);
    return 1;
  }
  if (c < 0x800) {
    out[0] = static_cast<char>(0xC0 | (c >> 6));
    out[1] = static_cast<char>(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (c >> 12));
    out[1] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (c >> 18));
  out[1] = static_cast<char>(0x80 | ((c >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((c >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (c & 0x3F));
  return 4;
}

// What the ASCII screen shows for a character brickprof prints; others '?'.
std::string_view ascii_of(char32_t c) {
  switch (c) {
    case U'µ':
      return "u";
    case U'×':
      return "x";
    case U'─':
    case U'━':
    case U'┄':
      return "-";
    case U'│':
    case U'┃':
      return "|";
    case U'├':
    case U'┤':
    case U'┼':
    case U'┌':
    case U'┐':
    case U'┬':
    case U'┴':
      return "+";
    case U'└':
      return "`";
    case U'┘':
      return "'";
    case U'▸':
    case U'▶':
      return "+";
    case U'▾':
    case U'▼':
      return "v";
    case U'▲':
      return "^";
    case U'…':
      return "...";
    case U'≠':
      return "!=";
    case U'→':
      return "->";
    case U'›':
      return ">";
    case U'←':
      return "<-";
    case U'↑':
      return "^";
    case U'↓':
      return "v";
    case U'·':
    case U'•':
      return ".";
    case U'█':
      return "#";
    case U'▏':
    case U'▎':
    case U'▍':
    case U'▌':
    case U'▋':
    case U'▊':
    case U'▉':
      return "+";
    case U'░':
      return ".";
    case U'Δ':
      return "d";
    case U'−':
      return "-";
    case U'╱':
      return "/";
    default:
      return "?";
  }
}

}  // namespace

int code_point_width(char32_t c) {
  if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || c == 0xFEFF) return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF && c != 0x303F) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
      (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
      (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

int display_width(std::string_view text, bool ascii) {
  int w = 0;
  for (size_t i = 0; i < text.size();) {
    char32_t c = decode(text, i);
    if (c < 0x20 || (c >= 0x7F && c < 0xA0))
      w += 1;
    else if (ascii && c >= 0x80)
      w += static_cast<int>(ascii_of(c).size());
    else
      w += code_point_width(c);
  }
  return w;
}

std::string_view drop_columns(std::string_view text, int& columns, bool ascii) {
  size_t i = 0;
  while (i < text.size() && columns > 0) {
    const size_t at = i;
    decode(text, i);
    columns -= display_width(text.substr(at, i - at), ascii);
  }
  columns = std::max(columns, 0);
  return text.substr(i);
}

Canvas::Canvas(int width, int height, bool ascii)
    : width_(std::max(0, width)),
      height_(std::max(0, height)),
      ascii_(ascii),
      cells_(static_cast<size_t>(width_ * height_)) {}

int Canvas::put(int x, int y, std::string_view text, Style style, int max) {
  if (y < 0 || y >= height_ || x >= width_) return 0;
  const int limit = std::min(width_, x + std::max(0, max));
  int at = x;
  auto place = [&](char32_t c, int w) {
    if (at + w > limit) return false;
    if (at >= 0) {
      // Never leave half of a wide character behind.
      if (cell(at, y).size == 0 && at > 0) cell(at - 1, y) = Cell{};
      if (at + w < width_ && cell(at + w, y).size == 0) cell(at + w, y) = Cell{};
      Cell& cell = this->cell(at, y);
      cell.size = static_cast<uint8_t>(encode(c, cell.text));
      cell.style = style;
      if (w == 2) {
        Cell& right = this->cell(at + 1, y);
        right.size = 0;
        right.style = style;
      }
    }
    at += w;
    return true;
  };
  for (size_t i = 0; i < text.size();) {
    char32_t c = decode(text, i);
    // Controls, and bidi overrides and isolates (they would reorder the
    // terminal's line): names are shown escaped before they get here.
    if (c < 0x20 || (c >= 0x7F && c < 0xA0) || (c >= 0x202A && c <= 0x202E) ||
        (c >= 0x2066 && c <= 0x2069))
      c = kBad;
    if (ascii_ && c >= 0x80) {
      bool room = true;
      for (char a : ascii_of(c)) room = room && place(static_cast<unsigned char>(a), 1);
      if (!room) break;
      continue;
    }
    const int w = code_point_width(c);
    if (w == 0) continue;
    if (!place(c, w)) break;
  }
  return at - x;
}

void Canvas::put_right(int x, int y, int w, std::string_view text, Style style) {
  put(x + std::max(0, w - display_width(text, ascii_)), y, text, style, w);
}

void Canvas::fill(int x, int y, int w, Style style) {
  if (y < 0 || y >= height_) return;
  for (int i = std::max(0, x); i < std::min(width_, x + w); ++i) cell(i, y) = Cell{{' '}, 1, style};
}

void Canvas::select(int x, int y, int w) {
  if (y < 0 || y >= height_) return;
  for (int i = std::max(0, x); i < std::min(width_, x + w); ++i) cell(i, y).selected = true;
}

void Canvas::restyle(int x, int y, int w, Style style) {
  if (y < 0 || y >= height_) return;
  for (int i = std::max(0, x); i < std::min(width_, x + w); ++i) cell(i, y).style = style;
}

std::string Canvas::row(int y) const {
  std::string s;
  for (int x = 0; x < width_; ++x) s.append(at(x, y).text, at(x, y).size);
  return s;
}

std::string Canvas::text() const {
  std::string s;
  for (int y = 0; y < height_; ++y) {
    std::string r = row(y);
    r.erase(r.find_last_not_of(' ') + 1);
    s += r + '\n';
  }
  return s;
}

}  // namespace brickprof::view
