// Finding a libcupti that takes the agent's one subscriber. A libcupti newer
// than the driver refuses it (CUPTI_ERROR_NOT_INITIALIZED and the like)
// where an older candidate may not, so each candidate that loads is tried
// in turn.
#pragma once

#include <string>

#include "agent/cupti/state.h"

namespace brickprof::agent {

// On success `state.cupti` is the table of the library that took the
// subscriber, `state.subscriber` is set and `path` names the library.
// Otherwise false with `why`: the other tool holding CUPTI (every candidate
// would say the same, so none is tried after it), or each tried path with
// its error, in one line.
bool subscribe_first_usable_cupti(GpuState& state, std::string* path, std::string* why);

}  // namespace brickprof::agent
