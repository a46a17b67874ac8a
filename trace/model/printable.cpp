// Names made safe for a terminal (see printable.h).
#include "trace/model/printable.h"

namespace brickprof {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool plain_ascii(unsigned char byte) { return byte >= 0x20 && byte < 0x7f; }

void append_byte_escape(std::string& out, unsigned char byte) {
  switch (byte) {
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
  }
}

// The code point of a well-formed sequence of `length` bytes at text[i].
char32_t decode(std::string_view text, size_t i, size_t length) {
  const auto b = [&](size_t k) { return char32_t{static_cast<unsigned char>(text[i + k])}; };
  if (length == 2) return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
  if (length == 3) return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
}

// C1 controls (xterm and others act on U+009B as CSI) and the bidi
// controls that make a line read differently from its bytes.
bool is_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

// `keep_lines`: newlines and tabs pass (a text of several lines).
void append_escaped(std::string& out, std::string_view text, bool keep_lines) {
  // Most names need nothing: copy runs of plain characters in one go.
  size_t run = 0;
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (plain_ascii(byte) || (keep_lines && (byte == '\n' || byte == '\t'))) {
      ++i;
      continue;
    }
    const size_t length = byte >= 0x80 ? utf8_sequence_length(text, i) : 0;
    const char32_t c = length ? decode(text, i, length) : 0;
    if (length && !is_control(c)) {
      i += length;
      continue;
    }
    out.append(text, run, i - run);
    if (length == 0) {
      append_byte_escape(out, byte);
      ++i;
    } else {
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(c >> shift) & 0xF]);
      i += length;
    }
    run = i;
  }
  out.append(text, run, text.size() - run);
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

void append_printable(std::string& out, std::string_view text) { append_escaped(out, text, false); }

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text, false);
  return out;
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text, true);
  return out;
}

}  // namespace brickprof
