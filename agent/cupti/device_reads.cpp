// The agent's own reads of device memory (see device_reads.h).
#include "agent/cupti/device_reads.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_set>

#include "agent/cupti/live_allocations.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"

namespace brickprof::agent::device_reads {
namespace {

constinit thread_local int t_agent_calls __attribute__((tls_model("initial-exec"))) = 0;

// The correlations of the agent's calls, until the trace is written: a
// hash node each, charged to the budget; past the bound, counted.
constexpr uint64_t kMaxRemembered = 1u << 22;
constexpr uint64_t kEntryBytes = 32;

struct Calls {
  std::mutex mutex;
  std::unordered_set<uint64_t> correlations;
};
Calls* g_calls = new Calls();  // never destroyed: records arrive during exit
std::atomic<uint64_t> g_unremembered{0};
std::atomic<bool> g_any{false};  // no lock per GPU record until the agent made a call

}  // namespace

AgentCall::AgentCall() { ++t_agent_calls; }
AgentCall::~AgentCall() { --t_agent_calls; }

bool in_agent_call() { return t_agent_calls > 0; }

void note_agent_call(uint64_t correlation) {
  g_any.store(true, std::memory_order_release);
  Calls& c = *g_calls;
  AgentLock lock(c.mutex);
  if (c.correlations.size() >= kMaxRemembered || !budget::charge(kEntryBytes)) {
    g_unremembered.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  try {
    if (!c.correlations.insert(correlation).second) budget::release(kEntryBytes);
  } catch (const std::bad_alloc&) {
    budget::release(kEntryBytes);
    g_unremembered.fetch_add(1, std::memory_order_relaxed);
  }
}

bool is_agent_work(uint64_t correlation) {
  if (!g_any.load(std::memory_order_acquire)) return false;
  Calls& c = *g_calls;
  AgentLock lock(c.mutex);
  return c.correlations.count(correlation) != 0;
}

uint64_t unremembered_calls() { return g_unremembered.load(std::memory_order_relaxed); }

const char* to_string(Read result) {
  switch (result) {
    case Read::kRead: return "read";
    case Read::kTooLarge: return "larger than 256 MiB";
    case Read::kNoDriver: return "the driver lacks cuMemcpyDtoH or cuStreamSynchronize";
    case Read::kSyncFailed: return "the synchronisation failed";
    case Read::kCopyFailed: return "the copy failed";
    case Read::kNoMemory: return "no host memory for the copy";
  }
  return "?";
}

Read copy_to_host(GpuState& s, CUstream stream, bool sync_context, uint64_t address,
                  uint64_t bytes, void** out) {
  *out = nullptr;
  const Driver& d = s.driver;
  if (bytes > kMaxBufferBytes) return Read::kTooLarge;
  if (d.memcpy_dtoh == nullptr || (!sync_context && d.stream_synchronize == nullptr))
    return Read::kNoDriver;
  AgentCall call;
  // cuMemcpyDtoH waits for the legacy default stream only; the kernel may
  // be on a non-blocking stream.
  const CUresult synced = sync_context ? d.ctx_synchronize() : d.stream_synchronize(stream);
  if (synced != CUDA_SUCCESS) return Read::kSyncFailed;
  void* copy = std::malloc(bytes == 0 ? 1 : bytes);
  if (copy == nullptr) return Read::kNoMemory;
  if (bytes > 0 && d.memcpy_dtoh(copy, static_cast<CUdeviceptr>(address), bytes) != CUDA_SUCCESS) {
    std::free(copy);
    return Read::kCopyFailed;
  }
  *out = copy;
  return Read::kRead;
}

void reset_after_fork() {
  g_calls = new Calls();  // the parent's is abandoned: its lock may be held
  g_unremembered.store(0);
}

}  // namespace brickprof::agent::device_reads

namespace brickprof::agent {

bool copy_if_device(const void* ptr, uint64_t bytes, void** copy) {
  *copy = nullptr;
  GpuState* s = gpu_state();
  if (s == nullptr) return false;  // no GPU source: no device memory either
  const uint64_t address = reinterpret_cast<uintptr_t>(ptr);
  live_allocations::Allocation allocation;
  if (live_allocations::find(address, &allocation)) {
    if (bytes > allocation.base + allocation.bytes - address) return true;  // past its end
  } else {
    // Memory the agent did not see allocated (before it started, or by a
    // call it does not intercept): the driver knows.
    unsigned int type = 0;
    const Driver& d = s->driver;
    device_reads::AgentCall call;
    if (d.pointer_get_attribute == nullptr ||
        d.pointer_get_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                static_cast<CUdeviceptr>(address)) != CUDA_SUCCESS ||
        type != CU_MEMORYTYPE_DEVICE)
      return false;
  }
  if (s->open_captures.load(std::memory_order_relaxed) > 0) return true;
  device_reads::copy_to_host(*s, nullptr, true, address, bytes, copy);
  return true;
}

}  // namespace brickprof::agent
