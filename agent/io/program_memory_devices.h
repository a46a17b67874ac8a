// The device of the program's own memory events (brickprof_mem_alloc /
// mem_free). The program's allocator says only an address; when that
// address lies inside device memory the driver handed out and that is
// live at the time (a cuMemAlloc'd arena, a mapped VMM range, a
// stream-ordered allocation), the event belongs to that allocation's GPU,
// so its pool reads "on GPU N", not "on host". A free takes the device of
// its allocation (same pool, same address), so the two stay one account
// (trace/derive/memory_accounts.h).
#pragma once

#include <vector>

#include "trace/model/memory.h"

namespace brickprof::agent {

// `events` sorted by time; program events on the host are moved to the
// device whose live allocation holds their address.
void place_program_memory(std::vector<MemoryEvent>& events);

}  // namespace brickprof::agent
