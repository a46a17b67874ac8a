// The program's memory events placed on the GPU whose driver allocation
// holds them (agent/io/program_memory_devices.h): bricklayer's CUDA pools
// and a caching allocator's blocks carve a cuMemAlloc'd arena, and read
// "on GPU N" rather than "on host".
#include "agent/io/program_memory_devices.h"

#include <gtest/gtest.h>

#include <vector>

#include "trace/model/ids.h"

namespace brickprof::agent {
namespace {

MemoryEvent event(int64_t t, MemoryOp op, MemorySource source, uint32_t device, uint64_t address,
                  uint64_t bytes, StringId name = 0) {
  MemoryEvent e;
  e.time_ns = t;
  e.op = op;
  e.source = source;
  e.device = device;
  e.address = address;
  e.bytes = bytes;
  e.name = name;
  return e;
}

constexpr StringId kPool = 7;
constexpr StringId kOtherPool = 8;

TEST(ProgramMemoryDevices, AnAllocationInsideADeviceArenaTakesItsGpuAndItsFreeFollows) {
  std::vector<MemoryEvent> events = {
      event(1, MemoryOp::kAlloc, MemorySource::kDevice, 1, 0x1000, 0x1000),
      event(2, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x1800, 0x100, kPool),
      event(3, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x1f80, 0x100, kPool),
      event(4, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x1800, 0x10, kOtherPool),
      event(5, MemoryOp::kFree, MemorySource::kDevice, 1, 0x1000, 0),
      event(6, MemoryOp::kFree, MemorySource::kProgram, kHostDeviceId, 0x1800, 0, kPool),
      event(7, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x1800, 0x100, kPool),
  };
  place_program_memory(events);
  EXPECT_EQ(events[1].device, 1u);              // inside the arena
  EXPECT_EQ(events[2].device, kHostDeviceId);   // runs past its end
  EXPECT_EQ(events[3].device, 1u);              // another pool in it
  EXPECT_EQ(events[5].device, 1u);              // the free follows its allocation,
  EXPECT_EQ(events[6].device, kHostDeviceId);   // even after the arena went; later ones do not
}

TEST(ProgramMemoryDevices, MappedRangesCountAndFailedOrHostEventsDoNot) {
  std::vector<MemoryEvent> events = {
      event(1, MemoryOp::kMap, MemorySource::kMapping, 0, 0x10000, 0x10000),
      event(2, MemoryOp::kAlloc, MemorySource::kPinned, kHostDeviceId, 0x40000, 0x1000),
      event(3, MemoryOp::kAlloc, MemorySource::kDevice, 2, 0x80000, 0x1000),
      event(4, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x12000, 0x100, kPool),
      event(5, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x40000, 0x100, kPool),
      event(6, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x80000, 0x100, kPool),
      event(7, MemoryOp::kUnmap, MemorySource::kMapping, 0, 0x10000, 0),
      event(8, MemoryOp::kAlloc, MemorySource::kProgram, kHostDeviceId, 0x13000, 0x100, kPool),
  };
  events[2].result = 2;  // an out-of-memory: it handed out nothing
  place_program_memory(events);
  EXPECT_EQ(events[3].device, 0u);             // in the mapped range
  EXPECT_EQ(events[4].device, kHostDeviceId);  // pinned host memory is the host's
  EXPECT_EQ(events[5].device, kHostDeviceId);  // the failed allocation holds nothing
  EXPECT_EQ(events[7].device, kHostDeviceId);  // unmapped by then
}

}  // namespace
}  // namespace brickprof::agent
