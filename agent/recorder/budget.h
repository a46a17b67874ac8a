// The one memory budget, BRICKPROF_BUFFER_MB: every byte the agent keeps for
// the trace is charged here before it is allocated (event chunks, interned
// names and the site table, per-thread state, the CUPTI records staged for
// the dump and their side tables, the activity buffers), so what does not
// fit is refused, dropped and counted instead of growing the host.
#pragma once

#include <cstdint>

namespace brickprof::agent::budget {

// Takes `bytes` from the budget for recording; false (and nothing taken)
// when they do not fit beside the write's reserve. Lock-free and
// async-signal-safe.
bool charge(uint64_t bytes);
// The same for the exit write, which may also take the reserve: a buffer
// recorded full still leaves room for the aggregate tree (tree, DOT and
// folded files) and the write's indexes.
bool charge_for_write(uint64_t bytes);
// The part of the capacity recording leaves to the write: a sixteenth,
// at least 64 KiB (but at most a quarter), at most 16 MiB.
uint64_t write_reserve();
// Gives back what a charge took.
void release(uint64_t bytes);

void set_capacity(uint64_t bytes);  // before recording; default 256 MiB
uint64_t capacity();
uint64_t used();

// In a fork child: the parent's charges are not ours, except for what the
// child keeps (`still_held`: the site table, whose ids call sites cache).
void reset_after_fork(uint64_t still_held);

}  // namespace brickprof::agent::budget
