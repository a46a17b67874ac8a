// Near names for a name the trace does not have (see closest_names.h).
#include "analysis/analyses/closest_names.h"

#include <algorithm>
#include <cstdint>

#include "trace/model/name_key.h"

namespace brickprof {
namespace {

bool contains_folded(std::string_view hay, std::string_view needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return ascii_lower(a) == ascii_lower(b); }) != hay.end();
}

// Edit distance with swaps of two neighbours (optimal string alignment),
// case aside, or limit + 1 once it must exceed `limit` (rows whose least
// entry is past it end the walk).
size_t edits_within(std::string_view a, std::string_view b, size_t limit) {
  const auto same = [](char x, char y) { return ascii_lower(x) == ascii_lower(y); };
  std::vector<size_t> before(b.size() + 1), row(b.size() + 1), next(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    next[0] = i;
    size_t least = next[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = row[j - 1] + !same(a[i - 1], b[j - 1]);
      next[j] = std::min({row[j] + 1, next[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        next[j] = std::min(next[j], before[j - 2] + 1);
      least = std::min(least, next[j]);
    }
    if (least > limit) return limit + 1;
    before.swap(row);
    row.swap(next);
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string_view> closest_names(const std::vector<std::string_view>& names,
                                            std::string_view typed, size_t limit) {
  struct Near {
    size_t tier;  // 0 case, 1 containment, 2 + edits
    std::string_view name;
    bool operator<(const Near& o) const { return tier != o.tier ? tier < o.tier : name < o.name; }
  };
  if (typed.empty()) return {};
  // A third of the typed name, at least one edit, and never all of it.
  const size_t allowed = std::min(std::max<size_t>(1, typed.size() / 3), typed.size() - 1);
  std::vector<Near> near;
  for (std::string_view name : names) {
    if (name.empty() || name == typed) continue;
    if (name.size() == typed.size() && lower_case(name) == lower_case(typed)) {
      near.push_back({0, name});
      continue;
    }
    const std::string_view shorter = name.size() < typed.size() ? name : typed;
    const std::string_view longer = name.size() < typed.size() ? typed : name;
    if (shorter.size() >= 3 && contains_folded(longer, shorter)) {
      near.push_back({1, name});
      continue;
    }
    if (allowed == 0 || longer.size() - shorter.size() > allowed) continue;
    const size_t edits = edits_within(typed, name, allowed);
    if (edits <= allowed) near.push_back({2 + edits, name});
  }
  const size_t keep = std::min(limit, near.size());
  std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(keep), near.end());
  std::vector<std::string_view> out;
  for (size_t i = 0; i < keep; ++i) out.push_back(near[i].name);
  return out;
}

std::string closest_names_note(const std::vector<std::string_view>& names, std::string_view typed) {
  std::string note;
  for (std::string_view name : closest_names(names, typed)) {
    note += note.empty() ? "; closest: '" : ", '";
    note += name;
    note += '\'';
  }
  return note;
}

}  // namespace brickprof
