// The one memory budget, BRICKPROF_BUFFER_MB: every byte the agent keeps for
// the trace is charged here before it is allocated (event chunks, interned
// names and the site table, per-thread state, the CUPTI records staged for
// the dump and their side tables, the activity buffers), so what does not
// fit is refused, dropped and counted instead of growing the host.
#pragma once

#include <cstdint>

namespace brickprof::agent::budget {

// Takes `bytes` from the budget; false (and nothing taken) when they do not
// fit. Lock-free and async-signal-safe.
bool charge(uint64_t bytes);
// Gives back what a charge took.
void release(uint64_t bytes);

void set_capacity(uint64_t bytes);  // before recording; default 256 MiB
uint64_t capacity();
uint64_t used();

// In a fork child: the parent's charges are not ours, except for what the
// child keeps (`still_held`: the site table, whose ids call sites cache).
void reset_after_fork(uint64_t still_held);

}  // namespace brickprof::agent::budget
