// Protocol buffers' wire format, by hand: varints, tags and length-prefixed
// fields appended to a string. Enough to write Perfetto's trace protos
// without a protobuf library (the agent links none).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace brickprof::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

inline void varint(std::string& out, uint64_t v) {
  char bytes[10];
  size_t n = 0;
  while (v >= 0x80) {
    bytes[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  bytes[n++] = static_cast<char>(v);
  out.append(bytes, n);
}

inline void tag(std::string& out, uint32_t field, WireType type) {
  varint(out, uint64_t{field} << 3 | type);
}

inline void uint_field(std::string& out, uint32_t field, uint64_t v) {
  tag(out, field, kVarint);
  varint(out, v);
}

// int32/int64 fields: negative values take ten bytes, as protobuf says.
inline void int_field(std::string& out, uint32_t field, int64_t v) {
  uint_field(out, field, static_cast<uint64_t>(v));
}

inline void fixed64_field(std::string& out, uint32_t field, uint64_t v) {
  tag(out, field, kFixed64);
  char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(v >> (8 * i));
  out.append(bytes, 8);
}

// A string, bytes, or an already encoded nested message.
inline void bytes_field(std::string& out, uint32_t field, std::string_view bytes) {
  tag(out, field, kLengthDelimited);
  varint(out, bytes.size());
  out.append(bytes);
}

}  // namespace brickprof::proto
