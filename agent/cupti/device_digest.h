// Checksum mode's device path (agent/README.md, "Checksum mode"): a
// kernel's output buffer digested on the GPU by the agent's reduction
// kernels (digest_reduce.cu, embedded as PTX at build time), on the
// kernel's own stream right after it, with no host synchronisation. The
// digest is the host's digest_of, bit for bit (trace/model/checksum_tree.h).
//
// Per context, once: the PTX loaded (cuModuleLoadData) and its two
// functions looked up; a memory pool of the agent's own (cuMemPoolCreate,
// so the program's pools and their figures are untouched); an event and a
// pinned record (cuMemHostAlloc) per slot. Per buffer, on the stream: its
// scratch from that pool (cuMemAllocFromPoolAsync), the chunk launch, one
// combine launch per level, the root record copied into the slot's pinned
// memory (cuMemcpyDtoHAsync), the scratch freed (cuMemFreeAsync), the
// slot's event recorded. A digest is collected once its event has
// completed: cuEventQuery at later launches, cuEventSynchronize at the
// trace write. When every slot of a context is in flight the oldest is
// waited for, and the wait counted: the cost the mode adds to the program.
//
// Every driver call here is the agent's own (device_reads::AgentCall), so
// none shows in the trace. No lock is held across a driver call: a slot
// belongs to one thread at a time through its atomic state.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "agent/cupti/state.h"
#include "trace/model/checksum.h"

namespace brickprof::agent::device_digest {

inline constexpr unsigned kSlots = 64;    // digests in flight per context
inline constexpr unsigned kContexts = 8;  // contexts with reduction kernels

// Why the device path did not take a buffer (the host-copy path did).
enum class Refusal : uint8_t {
  kNone,
  kNoDriver,         // the driver lacks one of the calls above
  kNoContext,        // no current context on the launching thread
  kTooManyContexts,  // past kContexts
  kLoading,          // another thread is loading the kernels into this context
  kModule,           // cuModuleLoadData or cuModuleGetFunction failed
  kPool,             // cuMemPoolCreate failed
  kSlotsFailed,      // cuMemHostAlloc or cuEventCreate failed
  kBusy,             // every slot was being collected by other threads
  kScratch,          // the pool refused the scratch (device memory full)
  kLaunch,           // a reduction kernel's launch failed
  kCopy,             // cuMemcpyDtoHAsync or cuEventRecord failed
  kCount,
};
const char* to_string(Refusal refusal);

// What a digest is of; handed back with it.
struct Tag {
  uint64_t correlation = 0;  // the kernel launch's
  uint32_t arg = 0;          // which parameter
  ElementType type = ElementType::kBytes;
  uint64_t address = 0;
  uint64_t count = 0;        // elements from `address`
};

// Receives each digest collected (no lock of this module held).
using Done = void (*)(const Tag& tag, const Digest& digest);

// Queues the digest of tag.count elements at tag.address on `stream`,
// after the work already queued there. kNone, or why it could not (then
// nothing of it is left queued that matters: the host-copy path serves).
// May first wait for the oldest digest in flight (counted) and hand it to
// `done`.
Refusal enqueue(const GpuState& s, CUstream stream, const Tag& tag, Done done);

// Hands each completed digest to `done`; with `wait`, waits for every one
// in flight first (cuEventSynchronize).
void collect(const GpuState& s, bool wait, Done done);

// Before `ctx` goes away (CUPTI's CONTEXT_DESTROY_STARTING): its digests
// in flight are waited for and handed over, and its kernels, pool and
// slots forgotten (they go with it; a later context is set up afresh).
void context_destroying(const GpuState& s, CUcontext ctx, Done done);

struct Counts {
  uint64_t digests = 0;  // collected
  uint64_t waits = 0;    // enqueues that waited for the oldest in flight
  uint64_t lost = 0;     // queued, but their event failed (a context destroyed)
  bool loaded = false;   // the kernels ran in some context
};
Counts counts();

void reset_after_fork();

}  // namespace brickprof::agent::device_digest
