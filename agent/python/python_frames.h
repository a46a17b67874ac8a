// Python frames of GPU work: when a thread launches a kernel, copy or
// memset, its Python stack (file, line, qualified function name; at most
// BRICKPROF_PYTHON_DEPTH frames) is read in place (frame_reader.h), GIL held
// or not, interned (stack_table.h), and its id travels with the launch
// record. The interpreter is never called, started, changed or waited for:
// the symbols the reader needs are found at start (cpython_symbols.h) and
// its layout is the version's (interpreter_layout.h). A process without
// Python pays one failed symbol lookup at start and a load and a branch per
// launch.
#pragma once

#include <cstdint>

#include "trace/model/trace.h"

namespace brickprof::agent::python {

// Finds the interpreter and its layout once. `depth` 0: frames are not read.
void start(uint32_t depth);
// For a library loaded after start (a program that embeds Python through
// dlopen): looks again, only if the first lookup found no Python and a
// libpython is now mapped. Rare: called when a CUDA context is created.
void look_again_if_loaded();
// The calling thread's Python stack: 1 + its index in the trace's
// python_stacks, or 0 (no Python frames on this thread, off, an
// interpreter not as expected (counted), or the table is full (counted)).
uint32_t current_stack();
// In a fork child: the table's lock afresh (another thread may have held it
// at fork, adding a stack; a launch in the child reads its stack).
void reset_after_fork_in_child();
// The frames and stacks for the trace, and a warning for each thing that
// kept stacks out: an interpreter not known, stacks not read or not kept.
void contribute(Trace& header);

}  // namespace brickprof::agent::python
