// `/` search: a name pattern (smart case, as in vim and less: case-blind
// unless the pattern has a capital letter) and the walk to the next or
// previous match, wrapping around.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace brickprof::view {

class Matcher {
 public:
  Matcher() = default;
  explicit Matcher(std::string pattern);

  bool empty() const { return pattern_.empty(); }
  const std::string& pattern() const { return pattern_; }
  // Byte offset of the first match in `text`, or npos.
  size_t find(std::string_view text) const;
  bool matches(std::string_view text) const { return find(text) != std::string_view::npos; }

 private:
  std::string pattern_;
  bool fold_ = true;  // no capital letter in the pattern: case-blind
};

// The first i in [0, count) after `from` (before it, when !forward),
// wrapping around and ending with `from` itself, for which matches(i);
// SIZE_MAX when none does.
size_t find_next(size_t count, size_t from, bool forward,
                 const std::function<bool(size_t)>& matches);

}  // namespace brickprof::view
