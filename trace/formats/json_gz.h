// The "json.gz" output format: the JSON trace, gzip-compressed on the way out.
#pragma once

#include <ostream>

#include "trace/model/trace.h"

namespace brickprof {

// Throws std::runtime_error when zlib cannot be loaded or a write fails.
void write_trace_json_gz(const Trace& trace, std::ostream& out);

}  // namespace brickprof
