// Structural JSON scanning for the streaming trace reader (see json_scan.h).
#include "analysis/json_scan.h"

#include <array>
#include <cstring>

namespace brickprof {
namespace {

enum : unsigned char { kPlain, kQuote, kOpen, kClose, kDelim };

constexpr std::array<unsigned char, 256> make_classes() {
  std::array<unsigned char, 256> c{};
  c['"'] = kQuote;
  c['{'] = kOpen;
  c['['] = kOpen;
  c['}'] = kClose;
  c[']'] = kClose;
  c[','] = kDelim;
  c[':'] = kDelim;
  return c;
}
constexpr std::array<unsigned char, 256> kClasses = make_classes();

}  // namespace

size_t skip_json_space(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i;
}

size_t json_string_end(std::string_view t, size_t i) {
  ++i;
  while (i < t.size()) {
    const void* q = std::memchr(t.data() + i, '"', t.size() - i);
    if (!q) return kScanFailed;
    size_t at = static_cast<size_t>(static_cast<const char*>(q) - t.data());
    size_t slashes = 0;
    while (at - slashes > i && t[at - slashes - 1] == '\\') ++slashes;
    if (slashes % 2 == 0) return at + 1;  // not escaped
    i = at + 1;
  }
  return kScanFailed;
}

size_t json_value_end(std::string_view t, size_t i) {
  if (i >= t.size()) return kScanFailed;
  unsigned char first = kClasses[static_cast<unsigned char>(t[i])];
  if (first == kQuote) return json_string_end(t, i);
  if (first != kOpen) {  // a scalar: up to the next delimiter or space
    while (i < t.size()) {
      unsigned char c = kClasses[static_cast<unsigned char>(t[i])];
      if (c == kDelim || c == kClose || t[i] == ' ' || t[i] == '\n' || t[i] == '\r' ||
          t[i] == '\t')
        return i;
      ++i;
    }
    return i;
  }
  // Brackets must match in kind too: keep a small fixed stack (a trace
  // nests a few levels; deeper input is refused, and nothing recurses).
  char open[256];
  size_t depth = 0;
  const char* p = t.data() + i;
  const char* end = t.data() + t.size();
  while (p < end) {
    // Tight loop: only quotes and brackets matter inside a container.
    unsigned char c = kClasses[static_cast<unsigned char>(*p)];
    if (c == kPlain || c == kDelim) {
      ++p;
      continue;
    }
    if (c == kQuote) {
      size_t at = json_string_end(t, static_cast<size_t>(p - t.data()));
      if (at == kScanFailed) return kScanFailed;
      p = t.data() + at;
      continue;
    }
    if (c == kOpen) {
      if (depth == sizeof open) return kScanFailed;
      open[depth++] = *p == '{' ? '}' : ']';
    } else {
      if (depth == 0 || open[depth - 1] != *p) return kScanFailed;
      if (--depth == 0) return static_cast<size_t>(p - t.data()) + 1;
    }
    ++p;
  }
  return kScanFailed;
}

}  // namespace brickprof
