// The names nearest to one a user typed (an option, a command, a scope), for
// "did you mean" answers: by edit distance (insertions, deletions,
// substitutions and swaps of two neighbours, ignoring case), and names the
// typed text starts, as git and cargo suggest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace brickprof {

// At most `max` of `names`, nearest first (ties in their given order): those
// within a third of the typed text's length (at least 1, at most 3 edits),
// or that start with it (3 characters or more).
std::vector<std::string> closest_names(std::string_view typed, const std::vector<std::string>& names,
                                       size_t max = 3);

}  // namespace brickprof
