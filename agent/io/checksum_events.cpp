// The trace's output checksums (see checksum_events.h).
#include "agent/io/checksum_events.h"

#include <algorithm>
#include <string>

#include "agent/recorder/budget.h"
#include "agent/recorder/checksum_table.h"
#include "agent/recorder/recorder.h"

namespace brickprof::agent {
namespace {

// A record here and its checksum in the header.
constexpr uint64_t kTakenBytes = 16 + sizeof(OutputChecksum);

}  // namespace

ChecksumEvents::~ChecksumEvents() { budget::release(charged_); }

void ChecksumEvents::add(uint32_t node, uint32_t name_site, uint64_t index) {
  if (node == kNoNode) {
    ++outside_;
    return;
  }
  if (!budget::charge_for_write(kTakenBytes)) {
    ++dropped_;
    return;
  }
  charged_ += kTakenBytes;
  taken_.push_back({node, name_site, index});
}

void ChecksumEvents::fill(Trace& trace) const {
  // After the kernels' digests the GPU source put there (checksum mode).
  trace.checksums.reserve(trace.checksums.size() + taken_.size());
  uint64_t missing = 0;
  for (const Taken& t : taken_) {
    checksum_table::Entry entry;
    if (!checksum_table::get(t.index, &entry)) {
      ++missing;
      continue;
    }
    OutputChecksum c;
    c.node = t.node;
    c.name = trace.strings.intern(Recorder::site(t.name_site).name);
    c.type = entry.type;
    c.source = entry.source;
    c.address = entry.address;
    c.digest = entry.digest;
    trace.checksums.push_back(c);
  }
  std::stable_sort(
      trace.checksums.begin(), trace.checksums.end(),
      [](const OutputChecksum& a, const OutputChecksum& b) { return a.node < b.node; });

  const uint64_t left_out = dropped_ + missing + checksum_table::dropped();
  if (left_out > 0)
    trace.diagnostics.warnings.push_back(
        std::to_string(left_out) +
        " output checksums left out: they did not fit BRICKPROF_BUFFER_MB, or their dtype "
        "or pointer was not one brickprof_checksum reads");
  if (outside_ > 0)
    trace.diagnostics.warnings.push_back(std::to_string(outside_) +
                                         " output checksums left out: taken outside every scope");
}

}  // namespace brickprof::agent
