// Nearest names by edit distance (see closest_names.h).
#include "analysis/model/closest_names.h"

#include <algorithm>
#include <cctype>

namespace brickprof {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Optimal string alignment distance (Damerau-Levenshtein without repeated
// edits of one substring), case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

bool starts_with_ignoring_case(std::string_view name, std::string_view prefix) {
  if (prefix.size() > name.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (lower(name[i]) != lower(prefix[i])) return false;
  return true;
}

}  // namespace

std::vector<std::string> closest_names(std::string_view typed, const std::vector<std::string>& names,
                                       size_t max) {
  constexpr size_t kTooLong = 256;  // names beyond this are not worth a quadratic table
  const size_t limit = std::clamp<size_t>(typed.size() / 3, 1, 3);
  std::vector<std::pair<size_t, size_t>> found;  // distance, index
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (name.size() > kTooLong || typed.size() > kTooLong) continue;
    const size_t distance = edit_distance(typed, name);
    if (distance <= limit)
      found.emplace_back(distance, i);
    else if (typed.size() >= 3 && starts_with_ignoring_case(name, typed))
      found.emplace_back(limit + 1, i);
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t k = 0; k < found.size() && out.size() < max; ++k)
    if (std::find(out.begin(), out.end(), names[found[k].second]) == out.end())
      out.push_back(names[found[k].second]);
  return out;
}

}  // namespace brickprof
