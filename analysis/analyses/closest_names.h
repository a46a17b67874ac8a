// The names a user may have meant when a name they typed is not there: a
// scope or brick (`--under NAME`, `--what-if NAME=K`), an option or a
// command ("did you mean"), as git and cargo suggest.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof {

// Of `names` (distinct), those closest to `typed`, at most `limit`, best
// first: equal but for case; then one containing the other (case aside,
// the shorter of at least 3 characters); then within a third of the
// typed length in edits (insertions, deletions, substitutions and swaps of
// two neighbours, case aside; at least one, never the whole name), fewest
// first. Ties by
// name. Names longer or shorter than `typed` by more than the edits
// allowed are not compared letter by letter, so megabyte names cost
// nothing.
std::vector<std::string_view> closest_names(const std::vector<std::string_view>& names,
                                            std::string_view typed, size_t limit = 3);

// "; closest: 'A', 'B'", or "" when there is none.
std::string closest_names_note(const std::vector<std::string_view>& names, std::string_view typed);

}  // namespace brickprof
