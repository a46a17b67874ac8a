// Checksum mode's device path (see device_digest.h).
#include "agent/cupti/device_digest.h"

#include <atomic>
#include <cstddef>

#include "agent/cupti/device_reads.h"
#include "trace/model/checksum_tree.h"

// digest_reduce.cu as PTX (NUL-terminated), generated at build time by
// kernels/cuda/embed.py (agent/cupti/meson.build).
extern const unsigned char brickprof_digest_reduce_ptx[];

namespace brickprof::agent::device_digest {
namespace {

using digest_tree::Record;

constexpr unsigned kThreadsPerBlock = 128;  // digest_reduce.cu's __launch_bounds__

enum SlotState : int { kFree, kOwned, kInFlight };

struct Slot {
  std::atomic<int> state{kFree};
  std::atomic<uint64_t> sequence{0};  // when it was queued: the oldest is waited for first
  Tag tag;
  CUevent event = nullptr;
  Record* record = nullptr;  // pinned: where the root record lands
};

enum ContextState : int { kEmpty, kSettingUp, kReady, kFailed };

struct Context {
  std::atomic<CUcontext> ctx{nullptr};
  std::atomic<int> state{kEmpty};
  Refusal failure = Refusal::kNone;  // why, once kFailed
  CUfunction chunks = nullptr;
  CUfunction combine = nullptr;
  CUmemoryPool pool = nullptr;
  Slot slots[kSlots];
};

struct State {
  Context contexts[kContexts];
  std::atomic<uint64_t> sequence{0};
  std::atomic<uint64_t> in_flight{0};  // no scan per launch while nothing is
  std::atomic<uint64_t> digests{0};
  std::atomic<uint64_t> waits{0};
  std::atomic<uint64_t> lost{0};
  std::atomic<bool> loaded{false};
};

State* g_state = new State();  // never destroyed: launches go on during exit

bool has_calls(const Driver& d) {
  return d.module_load_data != nullptr && d.module_get_function != nullptr &&
         d.launch_kernel != nullptr && d.mem_pool_create != nullptr &&
         d.mem_alloc_from_pool_async != nullptr && d.mem_free_async != nullptr &&
         d.mem_host_alloc != nullptr && d.memcpy_dtoh_async != nullptr &&
         d.event_create != nullptr && d.event_record != nullptr && d.event_query != nullptr &&
         d.event_synchronize != nullptr && d.ctx_get_current != nullptr &&
         d.ctx_get_device != nullptr;
}

// The entry of `ctx`, claimed on first sight; null past kContexts.
Context* context_of(CUcontext ctx) {
  for (Context& c : g_state->contexts) {
    CUcontext seen = c.ctx.load(std::memory_order_acquire);
    if (seen == ctx) return &c;
    if (seen == nullptr && c.ctx.compare_exchange_strong(seen, ctx)) return &c;
    if (seen == ctx) return &c;  // another thread claimed it for the same context
  }
  return nullptr;
}

// Loads the kernels, makes the pool and the slots, in the current context.
// Leaks what it made when a later step fails: a few handles, once per
// context, never retried.
Refusal set_up(const Driver& d, Context& c) {
  CUdevice device = 0;
  CUmodule module = nullptr;
  if (d.ctx_get_device(&device) != CUDA_SUCCESS ||
      d.module_load_data(&module, brickprof_digest_reduce_ptx) != CUDA_SUCCESS ||
      d.module_get_function(&c.chunks, module, "brickprof_digest_chunks") != CUDA_SUCCESS ||
      d.module_get_function(&c.combine, module, "brickprof_digest_combine") != CUDA_SUCCESS)
    return Refusal::kModule;
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;  // the only type pools take
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  if (d.mem_pool_create(&c.pool, &props) != CUDA_SUCCESS) return Refusal::kPool;
  void* pinned = nullptr;
  if (d.mem_host_alloc(&pinned, sizeof(Record) * kSlots, 0) != CUDA_SUCCESS)
    return Refusal::kSlotsFailed;
  for (unsigned i = 0; i < kSlots; ++i) {
    c.slots[i].record = static_cast<Record*>(pinned) + i;
    if (d.event_create(&c.slots[i].event, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS)
      return Refusal::kSlotsFailed;
  }
  return Refusal::kNone;
}

// The slot's digest, if its event completed (or, with `wait`, once it
// has); true if the slot is done with (handed over or lost).
bool finish(const Driver& d, Slot& slot, bool wait, Done done) {
  const CUresult r = wait ? d.event_synchronize(slot.event) : d.event_query(slot.event);
  if (r == CUDA_ERROR_NOT_READY) return false;
  g_state->in_flight.fetch_sub(1, std::memory_order_relaxed);
  if (r != CUDA_SUCCESS) {
    g_state->lost.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  g_state->digests.fetch_add(1, std::memory_order_relaxed);
  done(slot.tag, digest_of_root(*slot.record, slot.tag.count));
  return true;
}

// The slot queued first of those in flight, now owned by this thread; null
// if none (or another thread took it first).
Slot* oldest_in_flight(Context& c) {
  Slot* oldest = nullptr;
  for (Slot& slot : c.slots) {
    if (slot.state.load(std::memory_order_acquire) != kInFlight) continue;
    if (oldest == nullptr || slot.sequence.load(std::memory_order_relaxed) <
                                 oldest->sequence.load(std::memory_order_relaxed))
      oldest = &slot;
  }
  int expected = kInFlight;
  if (oldest == nullptr ||
      !oldest->state.compare_exchange_strong(expected, kOwned, std::memory_order_acquire))
    return nullptr;
  return oldest;
}

// A free slot, owned by this thread; if none, the oldest in flight, waited
// for and handed over first. Null if every slot is another thread's.
Slot* take_slot(const Driver& d, Context& c, Done done) {
  for (Slot& slot : c.slots) {
    int expected = kFree;
    if (slot.state.compare_exchange_strong(expected, kOwned, std::memory_order_acquire))
      return &slot;
  }
  Slot* oldest = oldest_in_flight(c);
  if (oldest == nullptr) return nullptr;
  g_state->waits.fetch_add(1, std::memory_order_relaxed);
  finish(d, *oldest, true, done);
  return oldest;
}

unsigned blocks_for(uint64_t threads) {
  return static_cast<unsigned>((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// The chunk launch and the combine launches into `scratch` (the chunk
// records, then room for the first level's); *root: where the last record
// is.
Refusal queue_tree(const Driver& d, const Context& c, CUstream stream, const Tag& tag,
                   CUdeviceptr scratch, CUdeviceptr* root) {
  CUdeviceptr data = tag.address;
  uint64_t bytes = tag.count * digest_tree::size_of(tag.type);
  unsigned type = static_cast<unsigned>(tag.type);
  CUdeviceptr in = scratch;
  uint64_t count = digest_tree::chunk_count(bytes);
  void* chunk_params[] = {&data, &bytes, &type, &in};
  if (d.launch_kernel(c.chunks, blocks_for(count), 1, 1, kThreadsPerBlock, 1, 1, 0, stream,
                      chunk_params, nullptr) != CUDA_SUCCESS)
    return Refusal::kLaunch;
  // Levels alternate between the chunk records' room and the level's.
  CUdeviceptr out = scratch + count * sizeof(Record);
  const CUdeviceptr spare = out;
  while (count > 1) {
    void* combine_params[] = {&in, &count, &out};
    const uint64_t groups = digest_tree::group_count(count);
    if (d.launch_kernel(c.combine, blocks_for(groups), 1, 1, kThreadsPerBlock, 1, 1, 0, stream,
                        combine_params, nullptr) != CUDA_SUCCESS)
      return Refusal::kLaunch;
    count = groups;
    in = out;
    out = out == spare ? scratch : spare;
  }
  *root = in;
  return Refusal::kNone;
}

}  // namespace

const char* to_string(Refusal refusal) {
  switch (refusal) {
    case Refusal::kNone: return "queued";
    case Refusal::kNoDriver: return "the driver lacks a call the reduction kernels need";
    case Refusal::kNoContext: return "no current context";
    case Refusal::kTooManyContexts: return "more than 8 contexts";
    case Refusal::kLoading: return "another thread was loading the reduction kernels";
    case Refusal::kModule: return "the reduction kernels did not load (cuModuleLoadData)";
    case Refusal::kPool: return "the agent's memory pool could not be made (cuMemPoolCreate)";
    case Refusal::kSlotsFailed: return "no pinned memory or events for the digests";
    case Refusal::kBusy: return "every digest slot was being collected by other threads";
    case Refusal::kScratch: return "no device memory for the reduction's scratch";
    case Refusal::kLaunch: return "a reduction kernel's launch failed";
    case Refusal::kCopy: return "the digest's copy or event failed";
    case Refusal::kCount: break;
  }
  return "?";
}

Refusal enqueue(const GpuState& s, CUstream stream, const Tag& tag, Done done) {
  const Driver& d = s.driver;
  if (!has_calls(d)) return Refusal::kNoDriver;
  device_reads::AgentCall call;
  CUcontext ctx = nullptr;
  if (d.ctx_get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr) return Refusal::kNoContext;
  Context* c = context_of(ctx);
  if (c == nullptr) return Refusal::kTooManyContexts;
  int state = c->state.load(std::memory_order_acquire);
  if (state == kEmpty && c->state.compare_exchange_strong(state, kSettingUp)) {
    c->failure = set_up(d, *c);
    state = c->failure == Refusal::kNone ? kReady : kFailed;
    c->state.store(state, std::memory_order_release);
  }
  if (state == kSettingUp) return Refusal::kLoading;
  if (state == kFailed) return c->failure;

  Slot* slot = take_slot(d, *c, done);
  if (slot == nullptr) return Refusal::kBusy;
  const uint64_t chunks = digest_tree::chunk_count(tag.count * digest_tree::size_of(tag.type));
  const uint64_t records = chunks + (chunks > 1 ? digest_tree::group_count(chunks) : 0);
  CUdeviceptr scratch = 0, root = 0;
  if (d.mem_alloc_from_pool_async(&scratch, records * sizeof(Record), c->pool, stream) !=
      CUDA_SUCCESS) {
    slot->state.store(kFree, std::memory_order_release);
    return Refusal::kScratch;
  }
  Refusal r = queue_tree(d, *c, stream, tag, scratch, &root);
  if (r == Refusal::kNone &&
      d.memcpy_dtoh_async(slot->record, root, sizeof(Record), stream) != CUDA_SUCCESS)
    r = Refusal::kCopy;
  d.mem_free_async(scratch, stream);  // after what was queued on it
  if (r == Refusal::kNone && d.event_record(slot->event, stream) != CUDA_SUCCESS)
    r = Refusal::kCopy;
  if (r != Refusal::kNone) {
    slot->state.store(kFree, std::memory_order_release);
    return r;
  }
  g_state->loaded.store(true, std::memory_order_relaxed);
  slot->tag = tag;
  slot->sequence.store(g_state->sequence.fetch_add(1) + 1, std::memory_order_relaxed);
  g_state->in_flight.fetch_add(1, std::memory_order_relaxed);
  slot->state.store(kInFlight, std::memory_order_release);
  return Refusal::kNone;
}

void collect(const GpuState& s, bool wait, Done done) {
  if (g_state->in_flight.load(std::memory_order_relaxed) == 0) return;
  device_reads::AgentCall call;
  for (Context& c : g_state->contexts) {
    if (c.state.load(std::memory_order_acquire) != kReady) continue;
    // Oldest first; without `wait`, up to the first not yet done: one
    // query per launch while the GPU is behind.
    while (Slot* slot = oldest_in_flight(c)) {
      const bool done_with = finish(s.driver, *slot, wait, done);
      slot->state.store(done_with ? kFree : kInFlight, std::memory_order_release);
      if (!done_with) break;
    }
  }
}

void context_destroying(const GpuState& s, CUcontext ctx, Done done) {
  for (Context& c : g_state->contexts) {
    if (c.ctx.load(std::memory_order_acquire) != ctx) continue;
    if (c.state.load(std::memory_order_acquire) == kReady) {
      device_reads::AgentCall call;
      while (Slot* slot = oldest_in_flight(c)) {
        finish(s.driver, *slot, true, done);
        slot->state.store(kFree, std::memory_order_release);
      }
    }
    int expected = kReady;
    if (!c.state.compare_exchange_strong(expected, kEmpty)) {
      expected = kFailed;
      c.state.compare_exchange_strong(expected, kEmpty);
    }
  }
}

Counts counts() {
  Counts c;
  c.digests = g_state->digests.load(std::memory_order_relaxed);
  c.waits = g_state->waits.load(std::memory_order_relaxed);
  c.lost = g_state->lost.load(std::memory_order_relaxed);
  c.loaded = g_state->loaded.load(std::memory_order_relaxed);
  return c;
}

void reset_after_fork() {
  g_state = new State();  // the parent's contexts and events mean nothing here
}

}  // namespace brickprof::agent::device_digest
