// Line tables of CPython 3.9 to 3.13 (see line_table.h). Each decoder
// walks from the table's start as PyCode_Addr2Line does (the tables have
// no index), so its cost grows with the offset: callers keep the answer.
#include "agent/python/line_table.h"

namespace brickprof::agent::python {
namespace {

// 3.9: the line advances by each pair's signed second byte once the
// address has passed the pair's first.
int64_t line_of_lnotab(const uint8_t* t, size_t size, int64_t line, int64_t offset, size_t* read) {
  int64_t address = 0;
  size_t i = 0;
  for (; i + 1 < size; i += 2) {
    address += t[i];
    if (address > offset) break;
    line += static_cast<int8_t>(t[i + 1]);
  }
  *read = i + 1 < size ? i + 1 : size;
  return line;
}

// 3.10: each pair is a range of bytes and the line delta that applies to
// it (-128: the range has no line, and the running line is unchanged).
int64_t line_of_linetable(const uint8_t* t, size_t size, int64_t line, int64_t offset,
                          size_t* read) {
  int64_t end = 0;
  *read = size;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const int64_t start = end;
    end += t[i];
    const auto delta = static_cast<int8_t>(t[i + 1]);
    int64_t range_line = -1;
    if (delta != -128) {
      line += delta;
      range_line = line;
    }
    if (start <= offset && offset < end) {
      *read = i + 2;
      return range_line;
    }
  }
  return -1;
}

// A 6-bit-per-byte varint (bit 6: more follow) at t[*i], bounded by `size`.
uint64_t varint(const uint8_t* t, size_t size, size_t* i) {
  uint64_t value = 0;
  for (unsigned shift = 0; *i < size && shift < 64; shift += 6) {
    const uint8_t b = t[(*i)++];
    value |= static_cast<uint64_t>(b & 63) << shift;
    if ((b & 64) == 0) break;
  }
  return value;
}

int64_t signed_varint(const uint8_t* t, size_t size, size_t* i) {
  const uint64_t u = varint(t, size, i);
  return (u & 1) != 0 ? -static_cast<int64_t>(u >> 1) : static_cast<int64_t>(u >> 1);
}

// 3.11+: entries of `(header & 7) + 1` code units (2 bytes each); the
// header's code (bits 3-6) says how the line moves: 15 no line, 13 and 14
// a signed varint delta, 10-12 a delta of 0-2, 0-9 the same line.
int64_t line_of_locations(const uint8_t* t, size_t size, int64_t line, int64_t offset,
                          size_t* read) {
  int64_t end = 0;
  size_t i = 0;
  *read = size;
  while (i < size) {
    const uint8_t header = t[i];
    if ((header & 128) == 0) return -1;  // not an entry's start: a damaged table
    const int code = (header >> 3) & 15;
    size_t next = i + 1;
    if (code == 13 || code == 14) {
      size_t at = i + 1;
      line += signed_varint(t, size, &at);
    } else if (code >= 10 && code <= 12) {
      line += code - 10;
    }
    const int64_t start = end;
    end += ((header & 7) + 1) * 2;
    while (next < size && (t[next] & 128) == 0) ++next;
    if (start <= offset && offset < end) {
      *read = next;
      return code == 15 ? -1 : line;
    }
    i = next;
  }
  return -1;
}

}  // namespace

int64_t line_of(LineTableFormat format, const uint8_t* table, size_t size, int64_t first_line,
                int64_t byte_offset, size_t* read) {
  size_t unused = 0;
  if (read == nullptr) read = &unused;
  *read = 0;
  switch (format) {
    case LineTableFormat::kLnotab39:
      return line_of_lnotab(table, size, first_line, byte_offset, read);
    case LineTableFormat::kLinetable310:
      if (byte_offset < 0) return first_line;
      return line_of_linetable(table, size, first_line, byte_offset, read);
    case LineTableFormat::kLocations311:
      if (byte_offset < 0) return first_line;
      return line_of_locations(table, size, first_line, byte_offset, read);
  }
  return -1;
}

}  // namespace brickprof::agent::python
