// Where `brickprof run` finds the agent library (libbrickprof.so).
#pragma once

#include <string>

namespace brickprof::cli {

// In order: $BRICKPROF_AGENT (an explicit choice: it must exist), then
// <dir of this binary>/../agent/libbrickprof.so (the build tree) and the
// agent where the install put it: <dir>/<libdir relative to bindir>, or in
// a Python environment the brickprof package's folder. Returns the absolute
// path, or "" with `error` set to one line saying what was tried.
std::string find_agent(std::string* error);

}  // namespace brickprof::cli
