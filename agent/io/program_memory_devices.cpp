// The device of the program's own memory events (see program_memory_devices.h).
#include "agent/io/program_memory_devices.h"

#include <iterator>
#include <map>
#include <utility>

#include "trace/model/ids.h"

namespace brickprof::agent {
namespace {

// Sources whose events hand out (or map) a device address range.
bool holds_device_range(MemorySource source) {
  switch (source) {
    case MemorySource::kDevice:
    case MemorySource::kAsync:
    case MemorySource::kManaged:
    case MemorySource::kGraph:
    case MemorySource::kMapping:
      return true;
    default:
      return false;
  }
}

struct Range {
  uint64_t end = 0;
  uint32_t device = 0;
};

}  // namespace

void place_program_memory(std::vector<MemoryEvent>& events) {
  std::map<uint64_t, Range> live;  // by start address
  // (pool, address) of a program allocation placed on a device -> its device.
  std::map<std::pair<StringId, uint64_t>, uint32_t> placed;
  for (MemoryEvent& e : events) {
    if (e.failed()) continue;
    if (holds_device_range(e.source) && e.device != kHostDeviceId) {
      if ((e.op == MemoryOp::kAlloc || e.op == MemoryOp::kMap) && e.bytes > 0)
        live[e.address] = Range{e.address + e.bytes, e.device};
      else if (e.op == MemoryOp::kFree || e.op == MemoryOp::kUnmap)
        live.erase(e.address);
      continue;
    }
    if (e.source != MemorySource::kProgram || e.device != kHostDeviceId) continue;
    const std::pair<StringId, uint64_t> key{e.name, e.address};
    if (e.op == MemoryOp::kFree) {
      if (auto it = placed.find(key); it != placed.end()) {
        e.device = it->second;
        placed.erase(it);
      }
      continue;
    }
    auto next = live.upper_bound(e.address);
    if (next == live.begin()) continue;
    const Range& holder = std::prev(next)->second;
    if (e.address + e.bytes > holder.end) continue;  // not inside it
    e.device = holder.device;
    placed[key] = holder.device;
  }
}

}  // namespace brickprof::agent
