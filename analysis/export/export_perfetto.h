// Perfetto's native trace format (<prefix>.pftrace): protobuf TracePackets
// written by hand, which Perfetto's UI and trace processor read directly and
// at a fraction of the Chrome JSON's size. A track per host thread, range
// lane and GPU stream, nested slices, flows from each launching scope to its
// GPU work, names interned per sequence and timestamps delta-encoded.
#pragma once

#include <ostream>

#include "analysis/model/trace.h"

namespace brickprof {

void write_perfetto_trace(const Trace& trace, std::ostream& out);

}  // namespace brickprof
