#include "trace/formats/source_processes.h"

#include <set>

namespace brickprof {

SourceProcesses::SourceProcesses(const Trace& trace) {
  std::set<int64_t> taken;
  for (size_t i = 0; i < trace.sources.size(); ++i) {
    const SourceInfo& src = trace.sources[i];
    int64_t pid = src.process.pid;
    if (!taken.insert(pid).second) pid = kSourcePidBase + static_cast<int64_t>(i);
    std::string program = src.process.program.empty() ? "process" : src.process.program;
    list_.push_back({pid, program + " (" + src.label + ")"});
    for (const SourceInfo::IdMap& t : src.threads) of_thread_[t.id] = i;
  }
  if (list_.empty())
    list_.push_back(
        {trace.process.pid, trace.process.program.empty() ? "process" : trace.process.program});
}

size_t SourceProcesses::index_of(uint32_t tid) const {
  auto it = of_thread_.find(tid);
  return it == of_thread_.end() ? 0 : it->second;
}

}  // namespace brickprof
