// Event memory made ready ahead of time. Fresh anonymous memory costs a page
// fault on first touch of every 4 KiB: on the 2-core VM we measured, that was
// 1.2 ms per 2 MiB, about half of what recording an event costs. A background
// thread maps and populates 2 MiB blocks so the recording thread only writes
// to memory that is already there. The thread starts when a process first
// needs a full-size block, so short or lightly annotated programs never get it.
#pragma once

#include <cstddef>

namespace brickprof::agent::page_pool {

constexpr size_t kBlockBytes = 2u << 20;

// A 2 MiB block, 2 MiB aligned and populated: a prepared one when the pool
// has it, else one mapped on the spot. nullptr when the system has no memory.
void* take_block();
// Returns a block take_block() gave to the system (the dump frees event
// memory as it consumes it).
void release_block(void* block);

// In a forked child: the pool's thread did not survive; start over.
void reset_after_fork();

}  // namespace brickprof::agent::page_pool
