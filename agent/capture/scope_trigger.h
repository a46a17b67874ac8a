// Capture by scope (BRICKPROF_CAPTURE=scope:NAME): while it is on, every
// push and pop of the recorder comes here. A thread's outermost scope named
// NAME opens the capture window before its push is recorded, and its pop
// closes it after.
#pragma once

#include <cstdint>

namespace brickprof::agent::capture {

// Recorder::push and Recorder::pop while capturing by scope: the same
// answers (whether a pop must follow; whether the pop was recorded).
bool push_in_trigger(uint32_t site, uint64_t arg);
bool pop_in_trigger();
// Whether this thread is inside a trigger scope (for a fork child).
bool inside_trigger();

}  // namespace brickprof::agent::capture
