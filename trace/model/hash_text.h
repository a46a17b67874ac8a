// A 64-bit hash (a PTX module's, a communicator's key) as text: "0x" and 16
// lower-case hex digits. The one spelling of every output: JSON strings
// (numbers lose bits above 2^53), the views and the ptx command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace brickprof {

inline constexpr size_t kHashTextSize = 18;  // "0x" + 16 digits

// Writes the kHashTextSize characters at `out` (no terminator); returns the
// end. For writers that fill a buffer in place.
inline char* put_hash_text(char* out, uint64_t hash) {
  out[0] = '0';
  out[1] = 'x';
  for (int i = 0; i < 16; ++i) out[17 - i] = "0123456789abcdef"[(hash >> (4 * i)) & 0xF];
  return out + kHashTextSize;
}

inline std::string hash_text(uint64_t hash) {
  std::string text(kHashTextSize, '0');
  put_hash_text(text.data(), hash);
  return text;
}

}  // namespace brickprof
