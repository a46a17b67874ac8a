// Smart-case matching and the wrapping walk (see search.h).
#include "tools/view/search.h"

#include <algorithm>
#include <cctype>

#include "trace/model/name_key.h"

namespace brickprof::view {

Matcher::Matcher(std::string pattern) : pattern_(std::move(pattern)) {
  fold_ = std::none_of(pattern_.begin(), pattern_.end(),
                       [](char c) { return std::isupper(static_cast<unsigned char>(c)); });
}

size_t Matcher::find(std::string_view text) const {
  if (pattern_.empty()) return std::string_view::npos;
  if (!fold_) return text.find(pattern_);
  auto it =
      std::search(text.begin(), text.end(), pattern_.begin(), pattern_.end(),
                  [](char a, char b) { return ascii_lower(a) == b; });
  return it == text.end() ? std::string_view::npos : static_cast<size_t>(it - text.begin());
}

size_t find_next(size_t count, size_t from, bool forward,
                 const std::function<bool(size_t)>& matches) {
  if (count == 0) return SIZE_MAX;
  from = std::min(from, count - 1);
  for (size_t step = 1; step <= count; ++step) {
    const size_t i = forward ? (from + step) % count : (from + count - step % count) % count;
    if (matches(i)) return i;
  }
  return SIZE_MAX;
}

}  // namespace brickprof::view
