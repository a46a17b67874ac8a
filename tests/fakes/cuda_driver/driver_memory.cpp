// The fake driver's memory: device allocations (plain, pitched, stream
// ordered from pools), the virtual memory management calls, pinned and
// registered host memory and managed memory, each checked and answered as
// the CUDA driver API reference (cuda.h, CUDA 13) says, and each device's
// memory accounted so that what does not fit is refused with
// CUDA_ERROR_OUT_OF_MEMORY, as a GPU refuses it.
//
// What counts against a device's memory, as on a GPU: cuMemAlloc and
// cuMemAllocPitch allocations (256-byte granules, the driver's alignment),
// each pool's reserve (not its used bytes: a pool keeps what it reserved
// until a sync or a trim gives it back), and physical VMM allocations until
// they are released and unmapped. Not counted: VA reservations and
// mappings (no new bytes), pinned and registered host memory, and managed
// memory, which the driver pages on demand and may oversubscribe (CUDA
// Programming Guide, "Unified Memory": oversubscription on Linux, Pascal and
// later). Kinder than a GPU in one respect, said here so no test leans on
// it: a real context holds a few hundred MiB itself, so a GPU refuses a
// little earlier than its size; the fake's whole size is free.
//
// CUPTI's memory records (CUPTI_ACTIVITY_KIND_MEMORY2, _MEMORY_POOL), with
// the fields cupti_activity.h (CUDA 13) gives CUpti_ActivityMemory4 and
// CUpti_ActivityMemoryPool3: one record per allocation and one per release
// (not one per pair, the old MEMORY kind), carrying the call's correlation
// id, stamped at the operation with CUPTI's clock (the tool's timestamp
// callback), queued into the client's buffers and so delivered when a
// buffer fills or at a flush. A stream-ordered record names its stream
// and its local pool (base address, release threshold, size = the pool's
// reserve after the operation, utilized bytes); a pool record comes at
// creation, trim and destruction. Where the headers do not say, the fake
// chooses, and scripts/gpu-check compares with a GPU: no record for the
// reserve a synchronisation gives back (the pool's next record says its
// size), none for the VMM calls nor a device's default pool's creation; a
// graph's memory node's records at each launch carry the launch's
// correlation id, as every record of work a graph launch runs does.
//
// Host-visible memory (pinned, managed) is real host memory; device memory
// is a fake address unless FAKE_CUDA_KERNELS executes kernels
// (driver_execute.h). A pool reserves in 2 MiB granules (the VMM
// granularity its reserve is made of); the real driver may reserve more at
// a time.
#include "driver_memory.h"

#include <cupti_activity.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iterator>
#include <map>
#include <mutex>

#include "driver_execute.h"
#include "driver_state.h"
#include "driver_trace.h"
#include "driver_work.h"
#include "fake_cuda.h"
#include "fork_child.h"

// The pool handle cuda.h declares: one per pool, never freed.
struct CUmemPoolHandle_st {
  CUdevice device;
  uint64_t base = 0;               // CUPTI's "base address of the memory pool"
  uint64_t reserved = 0;           // counted against the device
  uint64_t used = 0;               // handed out and not freed
  uint64_t release_threshold = 0;  // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD (default 0)
  bool is_default = false;
  bool destroyed = false;
};

using namespace fake_cuda;

namespace {

constexpr uint64_t kAlignment = 256;           // cuMemAlloc's, as driver_state's heap
constexpr uint64_t kGranularity = 2ull << 20;  // cuMemGetAllocationGranularity's minimum
constexpr uint64_t kPitchAlignment = 512;
constexpr uint64_t kHostPage = 4096;
constexpr uint64_t kVaBase = 0x7e0000000000ull;  // VMM reservations, below the heap
constexpr uint64_t kPoolBase = 0x7d0000000000ull;  // pools' base addresses, below those
constexpr uint64_t kPoolSpan = 1ull << 36;
constexpr int kMaxDevices = 16;                  // as FAKE_CUDA_DEVICES allows

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

enum class Kind : uint8_t { kDevice, kPool, kManaged, kHostPinned };

struct Allocation {
  uint64_t bytes;  // as counted (rounded)
  uint64_t requested;  // as asked for: what CUPTI's records say
  Kind kind;
  CUdevice device;
  CUmemoryPool pool;  // kPool
};

struct Physical {  // cuMemCreate
  uint64_t bytes;
  CUdevice device;
  uint32_t mappings = 0;
  bool released = false;
};

struct Mapping {  // cuMemMap
  uint64_t bytes;
  CUmemGenericAllocationHandle handle;
};

struct Memory {
  std::mutex mu;
  uint64_t held[kMaxDevices] = {};  // counted bytes per device
  std::map<uint64_t, Allocation> allocations;  // by address
  std::deque<CUmemPoolHandle_st> pools;         // deque: handles stay valid
  CUmemoryPool default_pool[kMaxDevices] = {};
  std::map<CUmemGenericAllocationHandle, Physical> physical;
  CUmemGenericAllocationHandle next_handle = 0x1000;
  std::map<uint64_t, uint64_t> reservations;  // VA start -> size
  uint64_t va_next = kVaBase;
  std::map<uint64_t, Mapping> mappings;        // VA start -> mapping
  std::map<uint64_t, uint64_t> registered;     // host start -> size
};

Memory& memory() {
  static Memory* m = [] {
    auto* made = new Memory();  // never freed: clients call in from exit handlers
    fake_cuda::renew_in_fork_child(&made->mu);
    return made;
  }();
  return *m;
}

CUpti_ActivityMemoryKind cupti_kind(Kind kind) {
  switch (kind) {
    case Kind::kManaged:
      return CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    case Kind::kHostPinned:
      return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    default:
      return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  }
}

// One MEMORY2 record. `stream`: a stream-ordered call's (the NULL stream
// has its own id), else none.
void memory_record(CUpti_ActivityMemoryOperationType op, CUpti_ActivityMemoryKind kind,
                   uint64_t address, uint64_t bytes, CUdevice device, uint32_t correlation,
                   const CUstream* stream, const CUmemPoolHandle_st* pool) {
  CUpti_ActivityMemory4 r;
  std::memset(&r, 0, sizeof r);
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = op;
  r.memoryKind = kind;
  r.correlationId = correlation;
  r.address = address;
  r.bytes = bytes;
  r.timestamp = now_ns();
  r.processId = static_cast<uint32_t>(getpid());
  r.deviceId = static_cast<uint32_t>(device);
  CUcontext ctx = current_context();
  r.contextId = ctx != nullptr ? ctx->id : CUPTI_INVALID_CONTEXT_ID;
  r.streamId = stream != nullptr ? stream_id(*stream) : CUPTI_INVALID_STREAM_ID;
  r.isAsync = stream != nullptr ? 1 : 0;
  if (pool != nullptr) {
    r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    r.memoryPoolConfig.address = pool->base;
    r.memoryPoolConfig.releaseThreshold = pool->release_threshold;
    r.memoryPoolConfig.pool.size = pool->reserved;
    r.memoryPoolConfig.utilizedSize = pool->used;
  }
  emit(r, r.contextId);
}

// One MEMORY_POOL record: the pool as it is after the operation.
void pool_record(CUpti_ActivityMemoryPoolOperationType op, const CUmemPoolHandle_st& pool,
                 uint32_t correlation, size_t min_bytes_to_keep = 0) {
  CUpti_ActivityMemoryPool3 r;
  std::memset(&r, 0, sizeof r);
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  r.memoryPoolOperationType = op;
  r.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  r.correlationId = correlation;
  r.processId = static_cast<uint32_t>(getpid());
  r.deviceId = static_cast<uint32_t>(pool.device);
  r.minBytesToKeep = min_bytes_to_keep;
  r.address = pool.base;
  r.size = pool.reserved;
  r.releaseThreshold = pool.release_threshold;
  r.timestamp = now_ns();
  r.utilizedSize = pool.used;
  CUcontext ctx = current_context();
  emit(r, ctx != nullptr ? ctx->id : CUPTI_INVALID_CONTEXT_ID);
}

CUmemoryPool new_pool(Memory& m, CUdevice device) {
  m.pools.push_back(CUmemPoolHandle_st{device});
  m.pools.back().base = kPoolBase + kPoolSpan * (m.pools.size() - 1);
  return &m.pools.back();
}

bool fits(const Memory& m, CUdevice device, uint64_t bytes) {
  return bytes <= device_memory_bytes() && m.held[device] <= device_memory_bytes() - bytes;
}

// Device-resident bytes at a fresh address (host memory when executing).
CUdeviceptr device_address(uint64_t bytes) {
  return executing() ? execute_alloc(bytes) : heap_alloc(bytes);
}

// Not zeroed nor touched: a test's large pinned buffer costs the machine only
// the pages it writes (a GPU's driver locks them all at once).
void* host_memory(uint64_t bytes) { return std::aligned_alloc(kHostPage, round_up(bytes, kHostPage)); }

// Gives the allocation at `address` back: to its pool, to the device, or to
// the host. Called with the lock held; false if there is none of `kinds`.
bool release(Memory& m, uint64_t address, std::initializer_list<Kind> kinds, uint32_t correlation,
             const CUstream* stream = nullptr) {
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return false;
  const Allocation a = it->second;
  bool wanted = false;
  for (Kind k : kinds) wanted |= a.kind == k;
  if (!wanted) return false;
  m.allocations.erase(it);
  if (a.kind == Kind::kPool) a.pool->used -= a.bytes;
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, cupti_kind(a.kind), address,
                a.requested, a.device, correlation, a.kind == Kind::kPool ? stream : nullptr,
                a.kind == Kind::kPool ? a.pool : nullptr);
  switch (a.kind) {
    case Kind::kDevice:
      m.held[a.device] -= a.bytes;
      if (executing()) execute_free(address);
      break;
    case Kind::kPool:
      // Back to the pool's reserve (above), still counted against the device.
      if (executing()) execute_free(address);
      break;
    case Kind::kManaged:
      if (executing())
        execute_free(address);
      else
        std::free(reinterpret_cast<void*>(address));
      break;
    case Kind::kHostPinned:
      std::free(reinterpret_cast<void*>(address));
      break;
  }
  return true;
}

// The pool's reserve down to `keep` (never below what it hands out).
void shrink(Memory& m, CUmemPoolHandle_st& pool, uint64_t keep) {
  keep = std::max(keep, round_up(pool.used, kGranularity));
  if (pool.reserved <= keep) return;
  m.held[pool.device] -= pool.reserved - keep;
  pool.reserved = keep;
}

CUmemoryPool default_pool(Memory& m, CUdevice device) {
  if (m.default_pool[device] == nullptr) {
    m.default_pool[device] = new_pool(m, device);
    m.default_pool[device]->is_default = true;
  }
  return m.default_pool[device];
}

// cuMemAllocAsync / cuMemAllocFromPoolAsync: grows the reserve if the pool
// has too little unused, refused if the growth does not fit the device.
CUresult pool_alloc(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool, CUstream stream,
                    uint32_t correlation) {
  CUcontext ctx = current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (dptr == nullptr || bytes == 0 || pool == nullptr || pool->destroyed)
    return CUDA_ERROR_INVALID_VALUE;
  const uint64_t need = round_up(bytes, kAlignment);
  // Captured: a memory-allocation node, its address fixed now, its memory
  // allocated at each launch (CUDA Programming Guide, "Graph Memory Nodes").
  if (stream != nullptr && stream->capture != nullptr) {
    CUgraphNode_st node{};
    node.memory = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    node.device = pool->device;
    node.address = device_address(bytes);
    node.bytes = need;
    capture_node(stream, node, ctx);
    *dptr = node.address;
    return CUDA_SUCCESS;
  }
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  if (pool->used + need > pool->reserved) {
    const uint64_t grow = round_up(pool->used + need - pool->reserved, kGranularity);
    if (!fits(m, pool->device, grow)) return CUDA_ERROR_OUT_OF_MEMORY;
    pool->reserved += grow;
    m.held[pool->device] += grow;
  }
  pool->used += need;
  *dptr = device_address(bytes);
  m.allocations[*dptr] = Allocation{need, bytes, Kind::kPool, pool->device, pool};
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                *dptr, bytes, pool->device, correlation, &stream, pool);
  return CUDA_SUCCESS;
}

bool valid_location(const CUmemLocation& l) {
  return l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id >= 0 && l.id < device_count();
}

}  // namespace

namespace fake_cuda {

uint64_t device_memory_bytes() {
  static const uint64_t bytes = [] {
    const char* v = std::getenv(kEnvDeviceMemory);
    const unsigned long long n = v != nullptr ? std::strtoull(v, nullptr, 10) : 0;
    return n > 0 ? n : kDeviceMemory;
  }();
  return bytes;
}

bool range_is_allocated(uint64_t address, uint64_t bytes) {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto inside = [&](const auto& by_start, auto size_of) {
    auto after = by_start.upper_bound(address);
    if (after == by_start.begin()) return false;
    const auto& [start, entry] = *std::prev(after);
    const uint64_t size = size_of(entry);
    return address - start < size && bytes <= size - (address - start);
  };
  return inside(m.allocations, [](const Allocation& a) { return a.bytes; }) ||
         inside(m.mappings, [](const Mapping& a) { return a.bytes; });
}

void release_pools_at_sync() {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  for (CUmemPoolHandle_st& pool : m.pools) shrink(m, pool, pool.release_threshold);
}

// A launch's memory nodes: an allocation node takes its bytes from the
// device (refused as any allocation when they do not fit) and a free node
// gives them back. A graph whose allocation is still held cannot be
// launched again ("a graph ... cannot be relaunched while its allocations
// are not freed", CUDA Programming Guide, "Graph Memory Nodes").
CUresult run_memory_node(CUgraphExec_st& exec, CUgraphNode_st& node, CUcontext ctx,
                         CUstream stream, uint32_t correlation) {
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  (void)ctx;
  if (node.memory == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
    if (node.allocated) return CUDA_ERROR_INVALID_VALUE;
    if (!fits(m, node.device, node.bytes)) return CUDA_ERROR_OUT_OF_MEMORY;
    m.held[node.device] += node.bytes;
    node.allocated = true;
    memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
                  CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, node.address, node.bytes, node.device,
                  correlation, &stream, nullptr);
    return CUDA_SUCCESS;
  }
  for (CUgraphNode a : exec.nodes) {
    if (a->memory != CU_GRAPH_NODE_TYPE_MEM_ALLOC || a->address != node.address || !a->allocated)
      continue;
    a->allocated = false;
    m.held[a->device] -= a->bytes;
    memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                  a->address, a->bytes, a->device, correlation, &stream, nullptr);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

}  // namespace fake_cuda

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  cuDeviceTotalMem_v2_params p{bytes, dev};
  TRACED(cuDeviceTotalMem_v2, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (dev < 0 || dev >= device_count()) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (bytes == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  *bytes = device_memory_bytes();
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total) {
  cuMemGetInfo_v2_params p{free, total};
  TRACED(cuMemGetInfo_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (free == nullptr || total == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  *total = device_memory_bytes();
  *free = device_memory_bytes() - m.held[ctx->device];
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* ptr, size_t bytes) {
  cuMemAlloc_v2_params p{ptr, bytes};
  TRACED(cuMemAlloc_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  if (ptr == nullptr || bytes == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const uint64_t counted = round_up(bytes, kAlignment);
  if (!fits(m, ctx->device, counted)) return call.finish(CUDA_ERROR_OUT_OF_MEMORY);
  *ptr = device_address(bytes);
  if (*ptr == 0) return call.finish(CUDA_ERROR_OUT_OF_MEMORY);
  m.held[ctx->device] += counted;
  m.allocations[*ptr] = Allocation{counted, bytes, Kind::kDevice, ctx->device, nullptr};
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                *ptr, bytes, ctx->device, call.correlation(), nullptr, nullptr);
  return call.finish(CUDA_SUCCESS);
}

// "the pitch ... is guaranteed to be at least WidthInBytes", padded for
// coalescing: the fake pads rows to 512 bytes, so a program (and a test)
// must read the pitch back, as it must on a GPU.
CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pitch, size_t width,
                                    size_t height, unsigned int element_size) {
  cuMemAllocPitch_v2_params p{dptr, pitch, width, height, element_size};
  TRACED(cuMemAllocPitch_v2, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  // "ElementSizeBytes ... may be 4, 8 or 16"
  if (dptr == nullptr || pitch == nullptr || width == 0 || height == 0 ||
      (element_size != 4 && element_size != 8 && element_size != 16))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const uint64_t row = round_up(width, kPitchAlignment);
  const uint64_t counted = round_up(row * height, kAlignment);
  if (!fits(m, ctx->device, counted)) return call.finish(CUDA_ERROR_OUT_OF_MEMORY);
  *dptr = device_address(row * height);
  *pitch = row;
  m.held[ctx->device] += counted;
  m.allocations[*dptr] = Allocation{counted, row * height, Kind::kDevice, ctx->device, nullptr};
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                *dptr, row * height, ctx->device, call.correlation(), nullptr, nullptr);
  return call.finish(CUDA_SUCCESS);
}

// cuMemFree takes what cuMemAlloc, cuMemAllocPitch, cuMemAllocManaged and
// the stream-ordered allocators returned; anything else is an invalid value.
CUresult CUDAAPI cuMemFree_v2(CUdeviceptr ptr) {
  cuMemFree_v2_params p{ptr};
  TRACED(cuMemFree_v2, &p);
  if (ptr == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const bool freed =
      release(m, ptr, {Kind::kDevice, Kind::kPool, Kind::kManaged}, call.correlation());
  return call.finish(freed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int flags) {
  cuMemAllocManaged_params p{dptr, bytes, flags};
  TRACED(cuMemAllocManaged, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  // "flags must be one of CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST"
  if (dptr == nullptr || bytes == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  *dptr = executing() ? execute_alloc(bytes) : reinterpret_cast<CUdeviceptr>(host_memory(bytes));
  if (*dptr == 0) return call.finish(CUDA_ERROR_OUT_OF_MEMORY);
  m.allocations[*dptr] = Allocation{round_up(bytes, kAlignment), bytes, Kind::kManaged,
                                    ctx->device, nullptr};
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
                CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, *dptr, bytes, ctx->device, call.correlation(),
                nullptr, nullptr);
  return call.finish(CUDA_SUCCESS);
}

// Page-locked host memory: real host memory, not counted on the device.
namespace {
CUresult host_alloc(void** pp, size_t bytes, uint32_t correlation) {
  CUcontext ctx = current_context();
  if (ctx == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (pp == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* host = host_memory(bytes);
  if (host == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  m.allocations[reinterpret_cast<uint64_t>(host)] =
      Allocation{round_up(bytes, kHostPage), bytes, Kind::kHostPinned, ctx->device, nullptr};
  memory_record(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                reinterpret_cast<uint64_t>(host), bytes, ctx->device, correlation, nullptr,
                nullptr);
  *pp = host;
  return CUDA_SUCCESS;
}
}  // namespace

CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytes, unsigned int flags) {
  cuMemHostAlloc_params p{pp, bytes, flags};
  TRACED(cuMemHostAlloc, &p);
  constexpr unsigned kKnown =
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
  if ((flags & ~kKnown) != 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  return call.finish(host_alloc(pp, bytes, call.correlation()));
}

CUresult CUDAAPI cuMemAllocHost_v2(void** pp, size_t bytes) {
  cuMemAllocHost_v2_params p{pp, bytes};
  TRACED(cuMemAllocHost_v2, &p);
  return call.finish(host_alloc(pp, bytes, call.correlation()));
}

CUresult CUDAAPI cuMemFreeHost(void* ptr) {
  cuMemFreeHost_params p{ptr};
  TRACED(cuMemFreeHost, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const bool freed =
      ptr != nullptr &&
      release(m, reinterpret_cast<uint64_t>(ptr), {Kind::kHostPinned}, call.correlation());
  return call.finish(freed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

// The program's own host memory, page-locked: ranges may not overlap
// (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED); unregister takes the base
// address that was registered (CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED).
CUresult CUDAAPI cuMemHostRegister_v2(void* ptr, size_t bytes, unsigned int flags) {
  cuMemHostRegister_v2_params p{ptr, bytes, flags};
  TRACED(cuMemHostRegister_v2, &p);
  if (current_context() == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  constexpr unsigned kKnown = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                              CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;
  if (ptr == nullptr || bytes == 0 || (flags & ~kKnown) != 0)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const uint64_t start = reinterpret_cast<uint64_t>(ptr);
  auto next = m.registered.lower_bound(start);
  const bool overlaps_next = next != m.registered.end() && next->first < start + bytes;
  const bool overlaps_prev =
      next != m.registered.begin() && std::prev(next)->first + std::prev(next)->second > start;
  if (overlaps_next || overlaps_prev)
    return call.finish(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  m.registered[start] = bytes;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemHostUnregister(void* ptr) {
  cuMemHostUnregister_params p{ptr};
  TRACED(cuMemHostUnregister, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const bool found = m.registered.erase(reinterpret_cast<uint64_t>(ptr)) == 1;
  return call.finish(found ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

// Stream-ordered allocation. The fake's GPU runs work in order as it is
// queued, so a free's bytes return to the pool at once (on a GPU: once the
// stream reaches the free).
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice dev) {
  cuDeviceGetDefaultMemPool_params p{pool, dev};
  TRACED(cuDeviceGetDefaultMemPool, &p);
  if (!initialized()) return call.finish(CUDA_ERROR_NOT_INITIALIZED);
  if (dev < 0 || dev >= device_count()) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  if (pool == nullptr) return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  *pool = default_pool(m, dev);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  cuMemPoolCreate_params p{pool, props};
  TRACED(cuMemPoolCreate, &p);
  // "allocType ... Currently must be specified as CU_MEM_ALLOCATION_TYPE_PINNED"
  if (pool == nullptr || props == nullptr || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      !valid_location(props->location))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  *pool = new_pool(m, props->location.id);
  pool_record(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, **pool, call.correlation());
  return call.finish(CUDA_SUCCESS);
}

// The unused reserve goes back at once; what is still handed out goes back
// as it is freed ("the resources associated with the pool will be released
// automatically once there are no more outstanding allocations"). A
// device's default pool cannot be destroyed.
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) {
  cuMemPoolDestroy_params p{pool};
  TRACED(cuMemPoolDestroy, &p);
  if (pool == nullptr || pool->is_default || pool->destroyed)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  pool->destroyed = true;
  pool->release_threshold = 0;
  shrink(m, *pool, 0);
  pool_record(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED, *pool, call.correlation());
  return call.finish(CUDA_SUCCESS);
}

// "Releases memory back to the OS until the pool contains fewer than
// minBytesToKeep reserved bytes, or there is no more memory that the
// allocator can safely release."
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t min_bytes_to_keep) {
  cuMemPoolTrimTo_params p{pool, min_bytes_to_keep};
  TRACED(cuMemPoolTrimTo, &p);
  if (pool == nullptr || pool->destroyed) return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  shrink(m, *pool, min_bytes_to_keep / kGranularity * kGranularity);
  pool_record(CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED, *pool, call.correlation(),
              min_bytes_to_keep);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* dptr, size_t bytes, CUstream stream) {
  cuMemAllocAsync_params p{dptr, bytes, stream};
  TRACED(cuMemAllocAsync, &p);
  CUcontext ctx = current_context();
  if (ctx == nullptr) return call.finish(CUDA_ERROR_INVALID_CONTEXT);
  CUmemoryPool pool;
  {
    Memory& m = memory();
    std::lock_guard<std::mutex> lock(m.mu);
    pool = default_pool(m, ctx->device);  // the device's current pool
  }
  return call.finish(pool_alloc(dptr, bytes, pool, stream, call.correlation()));
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytes, CUmemoryPool pool,
                                         CUstream stream) {
  cuMemAllocFromPoolAsync_params p{dptr, bytes, pool, stream};
  TRACED(cuMemAllocFromPoolAsync, &p);
  return call.finish(pool_alloc(dptr, bytes, pool, stream, call.correlation()));
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr ptr, CUstream stream) {
  cuMemFreeAsync_params p{ptr, stream};
  TRACED(cuMemFreeAsync, &p);
  if (ptr == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  // Captured: a memory-free node for an allocation node of the same graph;
  // freeing other memory in a graph is not modelled, refused loudly.
  if (stream != nullptr && stream->capture != nullptr) {
    for (CUgraphNode n : stream->capture->nodes) {
      if (n->memory != CU_GRAPH_NODE_TYPE_MEM_ALLOC || n->address != ptr) continue;
      CUgraphNode_st node{};
      node.memory = CU_GRAPH_NODE_TYPE_MEM_FREE;
      node.device = n->device;
      node.address = ptr;
      node.bytes = n->bytes;
      capture_node(stream, node, current_context());
      return call.finish(CUDA_SUCCESS);
    }
    return call.finish(CUDA_ERROR_NOT_SUPPORTED);
  }
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const bool freed = release(m, ptr, {Kind::kPool, Kind::kDevice}, call.correlation(), &stream);
  return call.finish(freed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

// Virtual memory management: reserve a VA range, create physical memory,
// map it into the range, set access; unmap, release, free the range.
// Sizes and offsets are multiples of the granularity ("size ... must be a
// multiple of the granularity returned by cuMemGetAllocationGranularity").
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t* granularity,
                                               const CUmemAllocationProp* prop,
                                               CUmemAllocationGranularity_flags option) {
  cuMemGetAllocationGranularity_params p{granularity, prop, option};
  TRACED(cuMemGetAllocationGranularity, &p);
  if (granularity == nullptr || prop == nullptr || !valid_location(prop->location))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  *granularity = kGranularity;  // minimum and recommended alike
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment,
                                     CUdeviceptr addr, unsigned long long flags) {
  cuMemAddressReserve_params p{ptr, size, alignment, addr, flags};
  TRACED(cuMemAddressReserve, &p);
  (void)addr;  // a hint the driver may ignore; this one does
  if (ptr == nullptr || size == 0 || size % kGranularity != 0 || flags != 0 ||
      (alignment & (alignment - 1)) != 0)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const uint64_t start = round_up(m.va_next, std::max<uint64_t>(alignment, kGranularity));
  m.va_next = start + size;
  m.reservations[start] = size;
  *ptr = start;
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  cuMemAddressFree_params p{ptr, size};
  TRACED(cuMemAddressFree, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.reservations.find(ptr);
  if (it == m.reservations.end() || it->second != size)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  m.reservations.erase(it);
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                             const CUmemAllocationProp* prop, unsigned long long flags) {
  cuMemCreate_params p{handle, size, prop, flags};
  TRACED(cuMemCreate, &p);
  if (handle == nullptr || prop == nullptr || flags != 0 || size == 0 ||
      size % kGranularity != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      !valid_location(prop->location))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  const CUdevice device = prop->location.id;
  if (!fits(m, device, size)) return call.finish(CUDA_ERROR_OUT_OF_MEMORY);
  m.held[device] += size;
  *handle = m.next_handle++;
  m.physical[*handle] = Physical{size, device};
  return call.finish(CUDA_SUCCESS);
}

// "The memory allocation will be freed when all outstanding mappings to the
// memory are unmapped and when all outstanding references to the handle
// ... are also released."
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle) {
  cuMemRelease_params p{handle};
  TRACED(cuMemRelease, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.physical.find(handle);
  if (it == m.physical.end() || it->second.released) return call.finish(CUDA_ERROR_INVALID_VALUE);
  it->second.released = true;
  if (it->second.mappings == 0) {
    m.held[it->second.device] -= it->second.bytes;
    m.physical.erase(it);
  }
  return call.finish(CUDA_SUCCESS);
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                          CUmemGenericAllocationHandle handle, unsigned long long flags) {
  cuMemMap_params p{ptr, size, offset, handle, flags};
  TRACED(cuMemMap, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto phys = m.physical.find(handle);
  if (phys == m.physical.end() || phys->second.released || flags != 0 || size == 0 ||
      size % kGranularity != 0 || offset % kGranularity != 0 || offset + size > phys->second.bytes)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  // Inside one reservation, over no other mapping.
  auto res = m.reservations.upper_bound(ptr);
  if (res == m.reservations.begin()) return call.finish(CUDA_ERROR_INVALID_VALUE);
  --res;
  if (ptr + size > res->first + res->second) return call.finish(CUDA_ERROR_INVALID_VALUE);
  auto next = m.mappings.lower_bound(ptr);
  if ((next != m.mappings.end() && next->first < ptr + size) ||
      (next != m.mappings.begin() && std::prev(next)->first + std::prev(next)->second.bytes > ptr))
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  m.mappings[ptr] = Mapping{size, handle};
  ++phys->second.mappings;
  return call.finish(CUDA_SUCCESS);
}

// "The range must be the entire contiguous address range that was mapped to."
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) {
  cuMemUnmap_params p{ptr, size};
  TRACED(cuMemUnmap, &p);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.mappings.find(ptr);
  if (it == m.mappings.end() || it->second.bytes != size)
    return call.finish(CUDA_ERROR_INVALID_VALUE);
  auto phys = m.physical.find(it->second.handle);
  m.mappings.erase(it);
  if (phys != m.physical.end() && --phys->second.mappings == 0 && phys->second.released) {
    m.held[phys->second.device] -= phys->second.bytes;
    m.physical.erase(phys);
  }
  return call.finish(CUDA_SUCCESS);
}

// Only mapped ranges can be given access.
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc,
                                size_t count) {
  cuMemSetAccess_params p{ptr, size, desc, count};
  TRACED(cuMemSetAccess, &p);
  if (desc == nullptr || count == 0 || size == 0) return call.finish(CUDA_ERROR_INVALID_VALUE);
  for (size_t i = 0; i < count; ++i)
    if (!valid_location(desc[i].location)) return call.finish(CUDA_ERROR_INVALID_DEVICE);
  Memory& m = memory();
  std::lock_guard<std::mutex> lock(m.mu);
  uint64_t at = ptr;
  while (at < ptr + size) {  // contiguous mappings cover the range
    auto it = m.mappings.find(at);
    if (it == m.mappings.end()) return call.finish(CUDA_ERROR_INVALID_VALUE);
    at += it->second.bytes;
  }
  return call.finish(CUDA_SUCCESS);
}
