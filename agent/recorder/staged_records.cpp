// GPU records kept for the dump (see staged_records.h).
#include "agent/recorder/staged_records.h"

#include <new>

namespace brickprof::agent {
namespace {

// What one interned name costs: its text in the table's storage and a node
// of its hash index, with the allocator's rounding.
uint64_t name_bytes(std::string_view text) { return 96 + 2 * ((text.size() + 15) & ~size_t{15}); }

}  // namespace

StagedRecords::~StagedRecords() { hooks_.give(charged_); }

bool StagedRecords::add(const Node& node, const GpuDetail& detail) {
  if (size_ % kBlock == 0 && size_ / kBlock == blocks_.size()) {
    const uint64_t bytes = kBlock * kBytesPerRecord + sizeof(void*);
    if (!hooks_.take(bytes)) return false;
    charged_ += bytes;
    blocks_.emplace_back(::operator new(kBlock * sizeof(StagedRecord)));
  }
  new (&block(size_ / kBlock)[size_ % kBlock]) StagedRecord{node, detail};
  ++size_;
  return true;
}

bool StagedRecords::intern(std::string_view text, StringId* id) {
  const size_t before = strings_.size();
  const uint64_t bytes = name_bytes(text);
  if (!hooks_.take(bytes)) return false;  // taken first: no allocation the budget refused
  *id = strings_.intern(text);
  if (strings_.size() == before) {
    hooks_.give(bytes);  // it was there already
  } else {
    charged_ += bytes;
  }
  return true;
}

}  // namespace brickprof::agent
