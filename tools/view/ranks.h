// The ranks of a merged trace side by side: per rank its run, kernels and
// slowest kernel, then per brick each rank's total time with the slowest
// rank marked and the spread between ranks. Drawn from each rank's summary
// model (trace/derive/stats.h, the `report --summary` model).
#pragma once

#include "tools/view/session.h"
#include "tools/view/styled_text.h"

namespace brickprof::view {

Lines ranks_lines(Session& session);

}  // namespace brickprof::view
