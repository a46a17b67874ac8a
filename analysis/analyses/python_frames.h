// GPU work launched outside every scope, grouped under the Python frames
// that launched it: synthetic scopes named "model.py:212 forward" (file's
// base name, line, function), built when a trace is read for the views.
// NVTX ranges and brickprof scopes keep precedence: only GPU nodes with no
// parent are moved. Consecutive launches of one thread whose innermost
// frames agree share their scopes (a loop at one line is one scope holding
// its kernels, as a sampling profiler would merge identical stacks); a
// brickprof scope of that thread in between starts them afresh.
#pragma once

#include <cstdint>
#include <string>

#include "analysis/model/trace.h"

namespace brickprof {

// The scope name of a frame: "model.py:212 forward".
std::string python_frame_name(const PythonFrame& frame);

// Adds the scopes (innermost `depth` frames of each stack; 0: none) and
// moves each orphan GPU node with a Python stack under its innermost one.
// Returns how many GPU nodes were moved.
size_t group_by_python_frames(Trace& trace, uint32_t depth);

}  // namespace brickprof
