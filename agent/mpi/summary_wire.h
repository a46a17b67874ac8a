// A rank's summary as bytes for the gather to rank 0: little-endian fixed
// fields and length-prefixed names, bounded by rank_summary.h's limits
// (names cut at kMaxNameBytes), so a rank sends at most kMaxWireBytes.
// Rank 0 reads what the others' agents, the same library, wrote; a record
// that does not read back whole is refused, never half taken.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "agent/mpi/rank_summary.h"
#include "trace/model/job_summary.h"

namespace brickprof::agent::mpi {

inline constexpr size_t kMaxNameBytes = 512;
inline constexpr size_t kStatBytes = 2 + kMaxNameBytes + 1 + 4 * 8;
inline constexpr size_t kCollectiveBytes = 3 * 8 + 1 + 3 * 4 + 2 * 8;
inline constexpr size_t kMaxAccountBytes = 255;  // a memory account's label
inline constexpr size_t kMemoryPeakBytes = 2 + kMaxAccountBytes + 8;
// The fixed fields, host and note, then the tables at their limits.
inline constexpr size_t kMaxWireBytes = 2048 + 2 * (4 + kMaxNames * kStatBytes + 8) + 4 +
                                        kMaxCollectives * kCollectiveBytes + 8 + 4 +
                                        kMaxMemoryPeaks * kMemoryPeakBytes + 8;

std::string pack_summary(const RankSummary& summary);
// False when `bytes` is not a whole record of this version.
bool unpack_summary(std::string_view bytes, RankSummary* out);

}  // namespace brickprof::agent::mpi
