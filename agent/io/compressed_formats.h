// The compressed output formats (json.gz) need zlib, which the agent loads
// at start: never later, when the trace may be written in a signal handler.
#pragma once

#include "agent/io/config.h"

namespace brickprof::agent {

// Loads zlib if the formats ask for json.gz. Without it, json.gz becomes
// json (once) and a warning saying why joins config.warnings, so the trace
// still exists and says why it is not compressed.
void settle_compressed_formats(Config& config);

}  // namespace brickprof::agent
