// The shape text (shape_text.h): written on the program's thread without
// allocating, read back at the exit write.
#include "agent/recorder/shape_text.h"

#include <charconv>

namespace brickprof::agent {
namespace {

// Appends to a fixed buffer; `ok` turns false once something did not fit.
struct Writer {
  char* out;
  size_t capacity;
  size_t size = 0;
  bool ok = true;

  void put(char c) {
    if (size < capacity)
      out[size++] = c;
    else
      ok = false;
  }
  void put(std::string_view s) {
    for (char c : s) put(c);
  }
  void put(int64_t v) {
    if (!ok) return;
    std::to_chars_result r = std::to_chars(out + size, out + capacity, v);
    if (r.ec != std::errc()) {
      ok = false;
      return;
    }
    size = static_cast<size_t>(r.ptr - out);
  }
  void dims(const int64_t* d, uint32_t rank) {
    put('[');
    for (uint32_t i = 0; i < rank; ++i) {
      if (i) put(',');
      put(d[i]);
    }
    put(']');
  }
};

bool dtype_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.';
}

// Reads "[d,d,...]" at the front of `text`, consuming it.
bool parse_dims(std::string_view& text, std::vector<int64_t>* dims) {
  if (text.empty() || text.front() != '[') return false;
  text.remove_prefix(1);
  if (!text.empty() && text.front() == ']') {
    text.remove_prefix(1);
    return true;
  }
  for (;;) {
    int64_t v = 0;
    std::from_chars_result r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc()) return false;
    dims->push_back(v);
    text.remove_prefix(static_cast<size_t>(r.ptr - text.data()));
    if (text.empty()) return false;
    const char c = text.front();
    text.remove_prefix(1);
    if (c == ']') return true;
    if (c != ',') return false;
  }
}

}  // namespace

size_t format_shape_text(char* out, size_t capacity, const char* dtype, const int64_t* dims,
                         const uint32_t* ranks, uint32_t n_inputs, const int64_t* out_dims,
                         uint32_t out_rank) {
  Writer w{out, capacity};
  if (!dtype || !*dtype) dtype = "?";
  for (const char* c = dtype; *c && w.ok; ++c) w.put(dtype_char(*c) || *c == '?' ? *c : '_');
  const int64_t* d = dims;
  for (uint32_t i = 0; i < n_inputs && w.ok; ++i) {
    const uint32_t rank = ranks ? ranks[i] : 0;
    if (rank && !d) return 0;
    w.put(' ');
    w.dims(d, rank);
    d += rank;
  }
  if (out_rank && !out_dims) return 0;
  w.put(" -> ");
  w.dims(out_dims, out_rank);
  return w.ok ? w.size : 0;
}

bool parse_shape_text(std::string_view text, ShapeSignature* shape) {
  *shape = ShapeSignature{};
  const size_t space = text.find(' ');
  if (space == 0 || space == std::string_view::npos) return false;
  shape->dtype.assign(text.substr(0, space));
  text.remove_prefix(space + 1);
  while (!text.empty() && text.front() == '[') {
    shape->inputs.emplace_back();
    if (!parse_dims(text, &shape->inputs.back())) return false;
    if (text.empty() || text.front() != ' ') return false;
    text.remove_prefix(1);
  }
  if (text.substr(0, 3) != "-> ") return false;
  text.remove_prefix(3);
  return parse_dims(text, &shape->output) && text.empty();
}

}  // namespace brickprof::agent
