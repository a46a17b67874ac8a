// NVTX injection (NVTX_INJECTION64_PATH): the agent fills NVTX's core
// function slots so ranges of unmodified NVTX-annotated programs become
// scopes; "Layer 3"/"layer.3" become layers, brick names and aliases bricks.
#pragma once

#include <string>

namespace brickprof::agent {

// For diagnostics.nvtx: "not loaded" until NVTX hands us its tables, then
// "active" (or why not).
std::string nvtx_status();

}  // namespace brickprof::agent
