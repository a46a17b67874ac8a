// The shape text of brickprof_set_shapes() (shape_text.h), on a fixed buffer.
#include "agent/recorder/shape_text.h"

#include <charconv>
#include <string_view>

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
    if (rank == 0) put('_');
    for (uint32_t i = 0; i < rank; ++i) {
      if (i) put('x');
      put(d[i]);
    }
  }
};

bool dtype_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.';
}

}  // namespace

size_t format_shape_text(char* out, size_t capacity, const char* dtype, const int64_t* dims,
                         const uint32_t* ranks, uint32_t n_inputs, const int64_t* out_dims,
                         uint32_t out_rank) {
  if ((n_inputs && !ranks) || (out_rank && !out_dims)) return 0;
  Writer w{out, capacity};
  if (!dtype || !*dtype) dtype = "?";
  for (const char* c = dtype; *c; ++c) w.put(dtype_char(*c) || *c == '?' ? *c : '_');
  w.put('|');
  const int64_t* d = dims;
  for (uint32_t i = 0; i < n_inputs && w.ok; ++i) {
    if (ranks[i] && !d) return 0;
    if (i) w.put(';');
    w.dims(d, ranks[i]);
    d += ranks[i];
  }
  w.put('|');
  w.dims(out_dims, out_rank);
  return w.ok ? w.size : 0;
}

}  // namespace brickprof::agent
