// The digests the program hands to brickprof_checksum, kept beside the
// events: a digest (checksum.h) is about 200 bytes, too big for a record, so
// the thread's kChecksum record carries its index here. Entries live in
// blocks charged to the one budget (budget.h); a digest that does not fit
// is dropped and counted, and the exit write says how many.
#pragma once

#include <cstdint>

#include "trace/model/checksum.h"

namespace brickprof::agent::checksum_table {

struct Entry {
  Digest digest;
  ElementType type = ElementType::kBytes;
  uint64_t address = 0;  // the buffer the program digested
  ChecksumSource source = ChecksumSource::kProgram;  // kHostCopy: device memory, copied
};

inline constexpr uint64_t kNotKept = UINT64_MAX;

// Keeps `entry`; its index, or kNotKept (counted) when its block does not
// fit the budget. Thread-safe.
uint64_t add(const Entry& entry);
// The entry at `index`; false if there is none (the write reads them).
bool get(uint64_t index, Entry* out);
// Digests dropped so far: past the budget, or not readable (an unknown
// dtype, a null pointer).
uint64_t dropped();
void count_dropped();

// In a fork child: the parent's entries are not ours, and its lock may have
// been held by another thread.
void reset_after_fork();

}  // namespace brickprof::agent::checksum_table
