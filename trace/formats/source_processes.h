// The process a CPU thread is shown in by the Chrome and Perfetto formats:
// the trace's own, or for a merged trace the source the thread came from
// (its recorded pid, or kSourcePidBase + its index where two sources share
// a pid), so each rank gets rows of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

// Above Linux's largest pid (2^22) and the GPUs' pids (chrome.h's kGpuPidBase).
inline constexpr int64_t kSourcePidBase = int64_t{1} << 23;

class SourceProcesses {
 public:
  struct Process {
    int64_t pid;
    std::string name;
  };

  explicit SourceProcesses(const Trace& trace);

  // In source order; the trace's own process when it is not merged.
  const std::vector<Process>& list() const { return list_; }
  // Index in list() of the process thread `tid` belongs to (the first when
  // no source lists it).
  size_t index_of(uint32_t tid) const;
  const Process& of(uint32_t tid) const { return list_[index_of(tid)]; }

 private:
  std::vector<Process> list_;
  std::map<uint32_t, size_t> of_thread_;  // merged tid -> index
};

}  // namespace brickprof
