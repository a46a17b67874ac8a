// The detail pane: everything known about the selected row, from the
// models the report views compute: the spread of one call (spread.h), its
// place on the critical path and its slack, its roofline point and bound,
// the launch delay of its kernel, the diff against the base, the PTX
// module it came from and, when the trace stored it, the PTX text.
#pragma once

#include <cstdint>

#include "tools/view/session.h"
#include "tools/view/styled_text.h"

namespace brickprof::view {

Lines detail_lines(Session& session, uint32_t row);

}  // namespace brickprof::view
