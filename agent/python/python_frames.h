// Python frames of GPU work: when a thread that holds the GIL launches a
// kernel, copy or memset, its Python stack (file, line, function; at most
// BRICKPROF_PYTHON_DEPTH frames) is interned and its id travels with the
// launch record. The interpreter is read only through its public C API,
// found at start (cpython_api.h), only while the calling thread holds the
// GIL, and never started, changed or waited for. A process without Python
// pays one failed symbol lookup at start and a load and a branch per launch.
#pragma once

#include <cstdint>

#include "analysis/model/trace.h"

namespace brickprof::agent::python {

// Looks the CPython API up once. `depth` 0: frames are not read.
void start(uint32_t depth);
// For a library loaded after start (a program that embeds Python through
// dlopen): looks again, only if the first lookup found no Python and a
// libpython is now mapped. Rare: called when a CUDA context is created.
void look_again_if_loaded();
// The calling thread's Python stack: 1 + its index in the trace's
// python_stacks, or 0 (no Python, GIL not held, off, or the table is full).
uint32_t current_stack();
// The frames and stacks for the trace, and a warning for stacks not kept.
void contribute(Trace& header);

}  // namespace brickprof::agent::python
