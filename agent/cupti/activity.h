// CUPTI activity: a fixed pool of aligned buffers handed to CUPTI (nothing
// is allocated when CUPTI asks), completed buffers translated into staged
// nodes, dropped records counted, forced flushes at exit and before resets.
#pragma once

#include <cstddef>
#include <string>

#include "agent/cupti/state.h"

namespace brickprof::agent {

// A fixed set of equally sized buffers; take() returns null when all are
// with CUPTI. Each buffer is charged through `hooks` (the memory budget):
// the pool holds as many as it was allowed, up to `count`. Thread-safe.
// Exposed for tests.
class BufferPool {
 public:
  BufferPool(size_t count, size_t bytes, MemoryHooks hooks = {});
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  uint8_t* take();
  void give_back(uint8_t* buffer);
  size_t buffer_bytes() const { return bytes_; }
  size_t available() const;
  size_t count() const { return all_.size(); }

 private:
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;
  size_t bytes_;
  MemoryHooks hooks_;
  mutable std::mutex mu_;
};

// Pool size from BRICKPROF_BUFFER_MB: an eighth of the cap, in buffers of
// a thirty-second of it (64 KiB to 4 MiB), at least 4 and at most 64 of
// them; all charged to the cap.
size_t activity_buffer_count(uint64_t buffer_bytes);
size_t activity_buffer_bytes(uint64_t buffer_bytes);
inline constexpr size_t kActivityBufferBytes = 4u << 20;  // the largest
inline constexpr size_t kMinActivityBufferBytes = 64u << 10;

// Registers the buffer callbacks and the timestamp source, enables the
// activity kinds. False with a reason if CUPTI refuses.
bool start_activity(GpuState& state, std::string* why);
// Undoes start_activity after a start that failed part-way: disables every
// kind it enabled (CUPTI keeps collecting them after cuptiUnsubscribe) and
// takes back the buffers CUPTI holds. Call with gpu_state() already null, so
// no record of theirs is kept.
void stop_activity(GpuState& state);
// cuptiActivityFlushAll(FORCED); safe to call from any thread, any time,
// CUPTI callbacks included: its reference (cupti_activity.h, CUDA 13) puts
// no limit on the caller, and NVIDIA's cupti_trace_injection sample flushes
// from its cudaDeviceReset API-enter callback.
void flush_activity(GpuState& state);

}  // namespace brickprof::agent
