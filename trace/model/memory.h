// Memory in the trace: every allocation and free the agent saw (the
// driver's calls, and what a program's own allocator reported through
// brickprof_mem_alloc), each on the thread and under the scope that made
// it, and the shapes a program attached to its scopes. The analyses turn
// the events into live bytes and peaks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/model/ids.h"
#include "trace/model/string_table.h"

namespace brickprof {

enum class MemoryOp : uint8_t { kAlloc, kFree, kMap, kUnmap, kTrim };

// Where the bytes come from, which decides the account they count in.
enum class MemorySource : uint8_t {
  kDevice,      // cuMemAlloc*, cuMemAllocPitch, cudaMalloc*
  kAsync,       // stream-ordered: cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync
  kPhysical,    // cuMemCreate / cuMemRelease: VMM physical memory (address: the handle)
  kMapping,     // cuMemMap / cuMemUnmap: a virtual range mapped, no new bytes
  kManaged,     // cuMemAllocManaged
  kPinned,      // cuMemHostAlloc, cuMemAllocHost, cuMemFreeHost
  kRegistered,  // cuMemHostRegister / cuMemHostUnregister
  kProgram,     // brickprof_mem_alloc / brickprof_mem_free: the program's own allocator
  // From CUPTI's activity records, which see what no API call says:
  kPoolReserve,  // a stream-ordered pool's whole reserve, as of the event (address: the pool)
  kGraph,        // a CUDA graph's memory-allocation node at a launch (and its free)
};

// What the bytes of a source count against.
enum class MemoryAccount : uint8_t {
  kDevice,      // device memory the driver handed out (reserved, as the driver sees it)
  kManaged,     // managed (unified) memory
  kHostPinned,  // page-locked host memory
  kProgram,     // what the program's allocator handed out of what it reserved (used)
  kPoolReserve,  // what the stream-ordered pools hold from the device (their allocations inside)
  kNone,        // mappings: they add no bytes
};

std::string_view to_string(MemoryOp op);
std::string_view to_string(MemorySource source);
std::string_view to_string(MemoryAccount account);
bool parse(std::string_view text, MemoryOp* out);
bool parse(std::string_view text, MemorySource* out);
MemoryAccount account_of(MemorySource source);

// One allocation, free, mapping or trim. A call that failed (`result` is
// its CUresult, 2 an out-of-memory) changed nothing, and is kept for what
// was live when it failed.
struct MemoryEvent {
  int64_t time_ns = 0;  // an allocation at its call's exit, a free at its entry
  uint32_t thread = 0;  // the calling thread
  uint32_t scope = kNoNode;  // the innermost scope open on the thread then
  MemoryOp op = MemoryOp::kAlloc;
  MemorySource source = MemorySource::kDevice;
  int32_t result = 0;
  uint32_t device = 0;   // CUDA ordinal; kHostDeviceId for host memory
  uint64_t address = 0;  // the pointer, or the VMM handle (kPhysical)
  uint64_t bytes = 0;    // alloc, map, trim (the bytes to keep); 0 on a free or
                         // unmap: it is paired with its allocation by address.
                         // kPoolReserve: the pool's reserve after the event
  uint64_t stream = 0;   // stream-ordered calls, else 0
  uint64_t pool = 0;     // a stream-ordered call's memory pool; 0: the device's default
  StringId name = 0;     // the API ("cuMemAlloc_v2"), or the program's pool ("kv_cache")
  uint32_t python_stack = kNoPythonStack;

  bool failed() const { return result != 0; }
};

// The shapes a program attached to a scope (brickprof_set_shapes).
struct NodeShape {
  uint32_t node = kNoNode;
  std::string dtype;                         // "f32", "f16", "bf16", "q4_k", "i32", ...
  std::vector<std::vector<int64_t>> inputs;  // each input's dimensions
  std::vector<int64_t> output;               // the output's dimensions

  uint64_t output_elements() const;
};

// Bytes per element of a dtype name; 0 when unknown or not a whole number
// of bytes (block-quantised types such as q4_k).
uint64_t dtype_bytes(std::string_view dtype);

}  // namespace brickprof
