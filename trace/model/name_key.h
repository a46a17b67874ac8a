// How names the program chose are compared: ASCII lower case (the same in
// any locale the host set) and, for matching, a key without separators, so
// "RMS_Norm", "rms-norm" and "rms norm" are one name.
#pragma once

#include <string>
#include <string_view>

namespace brickprof {

constexpr char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string lower_case(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// `name` in lower case without the characters in `separators`.
inline std::string name_key(std::string_view name, std::string_view separators = "_-. ") {
  std::string key;
  key.reserve(name.size());
  for (char c : name)
    if (separators.find(c) == std::string_view::npos) key.push_back(ascii_lower(c));
  return key;
}

}  // namespace brickprof
