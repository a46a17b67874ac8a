// The trace's output checksums, as the exit write reads them from the
// recorder's kChecksum records (pass 1 of io/trace_stream.h) and the digests
// they point to (recorder/checksum_table.h): held until the write puts them
// in the header, which the JSON writes.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof::agent {

class ChecksumEvents {
 public:
  ChecksumEvents() = default;
  ChecksumEvents(const ChecksumEvents&) = delete;
  ChecksumEvents& operator=(const ChecksumEvents&) = delete;
  ~ChecksumEvents();

  // One record: its node (kNoNode outside every scope: counted, not kept),
  // its name's site, its digest's index. Each is charged to the budget (the
  // write's share); past it, it is counted.
  void add(uint32_t node, uint32_t name_site, uint64_t index);
  // Into `trace.checksums`, beside what is there: by node, each node's in the order taken, names
  // interned in its strings; warnings for what was left out, here or when
  // it was taken (checksum_table::dropped()).
  void fill(Trace& trace) const;

 private:
  struct Taken {
    uint32_t node;
    uint32_t name_site;
    uint64_t index;
  };
  std::vector<Taken> taken_;
  uint64_t charged_ = 0;
  uint64_t dropped_ = 0;  // past the budget here
  uint64_t outside_ = 0;  // outside every scope
};

}  // namespace brickprof::agent
