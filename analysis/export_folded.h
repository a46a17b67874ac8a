// Collapsed stacks (<prefix>.folded) for flame graphs: one line per distinct
// stack, "Layer 0;RmsNorm;rmsnorm_kernel 50000", weight = self time in
// nanoseconds (CPU frames: duration minus CPU children; GPU frames: the GPU
// operation's duration). Lines are aggregated and sorted by stack.
#pragma once

#include <ostream>

#include "analysis/aggregate_tree.h"
#include "analysis/trace.h"

namespace brickprof {

void write_folded(const Trace& trace, std::ostream& out);
void write_folded(const Trace& trace, const AggregateTree& tree, std::ostream& out);

}  // namespace brickprof
