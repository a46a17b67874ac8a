// Merges per-rank traces into one: ids renumbered, strings re-interned, and
// each rank kept apart without a schema change: its devices get new ids and
// "rank R: " names, its threads new ids, and process.rank becomes -1 with a
// diagnostics warning listing the merged ranks. PTX modules that several
// ranks loaded (same hash) are kept once.
#pragma once

#include <vector>

#include "analysis/trace.h"

namespace brickprof {

Trace merge_traces(const std::vector<Trace>& ranks);

}  // namespace brickprof
