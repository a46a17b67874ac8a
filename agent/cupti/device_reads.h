// The agent's own reads of device memory, for checksum mode
// (kernel_checksums.h) and brickprof_checksum of a device pointer: a
// synchronisation, then cuMemcpyDtoH into a buffer of the agent's. The
// driver reports these calls to CUPTI like any other; while this thread
// makes one, the callbacks ignore it (in_agent_call) and the GPU records
// it leaves are left out of the trace (is_agent_work), so the program's
// trace shows its own work only.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "agent/cupti/state.h"

namespace brickprof::agent::device_reads {

// The most one buffer may take (the agent's copy of it is this large):
// a longer one is skipped and counted, never cut short.
inline constexpr uint64_t kMaxBufferBytes = 256ull << 20;

// While alive, this thread's driver calls are the agent's own (the
// callbacks note and skip them).
struct AgentCall {
  AgentCall();
  ~AgentCall();
  AgentCall(const AgentCall&) = delete;
  AgentCall& operator=(const AgentCall&) = delete;
};

// Whether this thread is inside one of the calls below (or an AgentCall).
bool in_agent_call();
// From the callbacks: a driver call the agent made (its GPU records are ours).
void note_agent_call(uint64_t correlation);
// Whether a GPU record's correlation is one of the agent's calls.
bool is_agent_work(uint64_t correlation);
// Agent calls not remembered (the bound): their records show in the trace.
uint64_t unremembered_calls();

enum class Read : uint8_t { kRead, kTooLarge, kNoDriver, kSyncFailed, kCopyFailed, kNoMemory };
const char* to_string(Read result);

// Waits for `stream` (with `sync_context`: for the whole context instead),
// then copies `bytes` at device `address` into a malloc'ed buffer (*out;
// the caller frees it). Nothing is thrown and the program's state is left
// as it was (a failure is the agent's alone: the driver's last error is not
// sticky for these).
Read copy_to_host(GpuState& s, CUstream stream, bool sync_context, uint64_t address,
                  uint64_t bytes, void** out);

void reset_after_fork();

}  // namespace brickprof::agent::device_reads

namespace brickprof::agent {

// brickprof_checksum's pointer (recorder/scope_api.cpp): false for host
// memory, which is read in place. Device memory — inside a live allocation
// (live_allocations.h), or where cuPointerGetAttribute says
// CU_MEMORYTYPE_DEVICE — is copied to the host after the context is
// synchronised (the program may have launched its writer on any stream):
// true, with *copy the malloc'ed copy, or null (counted by the caller as a
// digest left out) when it cannot be read: its range runs past the
// allocation, a stream capture is open (a sync would break it), the copy
// failed.
bool copy_if_device(const void* ptr, uint64_t bytes, void** copy);

}  // namespace brickprof::agent
