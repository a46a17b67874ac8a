// Labels the report views give nodes and lanes. Numbers (times, sizes,
// rates) are formatted by analysis/format.h.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/dependency_graph.h"
#include "analysis/trace.h"

namespace brickprof {

// "RmsNorm", or "(untracked CPU time)" for kNoNode.
std::string node_label(const Trace& trace, uint32_t node);
// "thread 12" or "gpu0 stream 7".
std::string lane_label(const Lane& lane);

}  // namespace brickprof
