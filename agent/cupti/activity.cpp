// CUPTI activity buffers and record intake (see activity.h).
#include "agent/cupti/activity.h"

#include <cstdlib>

#include "agent/capture/capture.h"
#include "agent/cupti/device_reads.h"
#include "agent/lifecycle/critical_section.h"
#include "agent/recorder/budget.h"
#include "agent/recorder/clock.h"

namespace brickprof::agent {
namespace {

constexpr size_t kAlign = 8;  // CUPTI requires 8-byte aligned buffers

BufferPool* g_pool = nullptr;  // never freed: CUPTI may still hold buffers

uint64_t CUPTIAPI timestamp_now() { return static_cast<uint64_t>(monotonic_ns()); }

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  uint8_t* b = g_pool ? g_pool->take() : nullptr;
  if (b == nullptr) {
    // Pool empty: hand CUPTI nothing; it drops records and counts them.
    if (GpuState* s = gpu_state()) s->buffers_refused.fetch_add(1);
    *buffer = nullptr;
    *size = 0;
    return;
  }
  *buffer = b;
  *size = g_pool->buffer_bytes();
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t size,
                               size_t valid_size) {
  (void)size;
  CuptiCallback section;  // see critical_section.h
  GpuState* s = gpu_state();
  if (s != nullptr && buffer != nullptr && valid_size > 0) {
    try {
      AgentLock lock(s->translate_mu);
      CUpti_Activity* record = nullptr;
      CUptiResult r;
      // No capture window open: work launched after the last recorded call
      // was launched outside every window, and is not even staged (what
      // slips through is left out at attribution).
      s->translation.stage_correlations_up_to =
          s->config.capture != capture::Mode::kAll && !capture::window_open()
              ? s->max_recorded_correlation.load(std::memory_order_acquire)
              : UINT64_MAX;
      while ((r = s->cupti.activity_get_next_record(buffer, valid_size, &record)) == CUPTI_SUCCESS)
        translate(record, s->translation);
      // Anything but "no more records": the rest of this buffer cannot be
      // walked. Its size is unknown; the loss is reported, not hidden.
      if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) s->unreadable_buffers.fetch_add(1);
    } catch (...) {
      // Out of memory while staging: the records of this buffer are lost.
    }
    size_t dropped = 0;
    if (s->cupti.activity_get_num_dropped(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
      s->dropped_records.fetch_add(dropped);
  }
  if (g_pool != nullptr && buffer != nullptr) g_pool->give_back(buffer);
}

}  // namespace

BufferPool::BufferPool(size_t count, size_t bytes, MemoryHooks hooks)
    : bytes_(bytes), hooks_(hooks) {
  for (size_t i = 0; i < count && hooks_.take(bytes); ++i) {
    auto* b = static_cast<uint8_t*>(std::aligned_alloc(kAlign, bytes));
    if (b == nullptr) {
      hooks_.give(bytes);
      break;
    }
    all_.push_back(b);
  }
  free_ = all_;
}

BufferPool::~BufferPool() {
  for (uint8_t* b : all_) std::free(b);
  hooks_.give(all_.size() * bytes_);
}

uint8_t* BufferPool::take() {
  AgentLock lock(mu_);
  if (free_.empty()) return nullptr;
  uint8_t* b = free_.back();
  free_.pop_back();  // capacity stays: no allocation on give_back either
  return b;
}

void BufferPool::give_back(uint8_t* buffer) {
  AgentLock lock(mu_);
  if (free_.size() < all_.size()) free_.push_back(buffer);
}

size_t BufferPool::available() const {
  AgentLock lock(mu_);
  return free_.size();
}

size_t activity_buffer_bytes(uint64_t buffer_bytes) {
  uint64_t b = buffer_bytes / 32;
  if (b < kMinActivityBufferBytes) b = kMinActivityBufferBytes;
  if (b > kActivityBufferBytes) b = kActivityBufferBytes;
  return static_cast<size_t>(b);
}

size_t activity_buffer_count(uint64_t buffer_bytes) {
  uint64_t n = buffer_bytes / 8 / activity_buffer_bytes(buffer_bytes);
  if (n < 4) n = 4;
  if (n > 64) n = 64;
  return static_cast<size_t>(n);
}

bool start_activity(GpuState& s, std::string* why) {
  const Cupti& c = s.cupti;
  const MemoryHooks charged{budget::charge, budget::release};
  if (g_pool == nullptr) {
    const size_t wanted = activity_buffer_count(s.config.buffer_bytes);
    g_pool = new BufferPool(wanted, activity_buffer_bytes(s.config.buffer_bytes), charged);
    if (g_pool->count() < wanted)
      s.warnings.push_back("BRICKPROF_BUFFER_MB left room for " + std::to_string(g_pool->count()) +
                           " of " + std::to_string(wanted) + " CUPTI activity buffers");
  }
  // Staged records share the budget with the recorder's events.
  s.translation.staged.set_hooks(charged);
  s.translation.memory_hooks = charged;
  s.translation.registry = &s.registry;
  s.translation.agent_work = device_reads::is_agent_work;
  // One timeline: CUPTI stamps GPU records with our CLOCK_MONOTONIC ns.
  if (c.register_timestamp == nullptr || c.register_timestamp(timestamp_now) != CUPTI_SUCCESS)
    s.warnings.push_back("CUPTI timestamp callback unavailable: GPU times on CUPTI's clock");
  CUptiResult r = c.activity_register_callbacks(buffer_requested, buffer_completed);
  if (r != CUPTI_SUCCESS) {
    *why = "cuptiActivityRegisterCallbacks: " + cupti_error(c, r);
    return false;
  }
  // CONCURRENT_KERNEL, never KERNEL: the latter serialises all kernels.
  const CUpti_ActivityKind required[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
  for (CUpti_ActivityKind kind : required) {
    r = c.activity_enable(kind);
    if (r != CUPTI_SUCCESS) {
      *why = "cuptiActivityEnable(" + std::to_string(kind) + "): " + cupti_error(c, r);
      return false;
    }
    s.enabled_kinds.push_back(kind);
  }
  // MEMORY2 and MEMORY_POOL: what the memory callbacks cannot see, a
  // pool's reserve and a graph's allocations (io/memory_activity.h).
  const CUpti_ActivityKind optional[] = {
      CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
      CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL};
  for (CUpti_ActivityKind kind : optional) {
    r = c.activity_enable(kind);
    if (r == CUPTI_SUCCESS) {
      s.enabled_kinds.push_back(kind);
    } else {
      s.warnings.push_back("activity kind " + std::to_string(kind) +
                           " not enabled: " + cupti_error(c, r));
    }
  }
  if (s.config.graph_trace == GraphTrace::kGraph) {
    // With GRAPH_TRACE on, CUPTI records a graph launch once and its nodes
    // not at all (seen on an H100: 0 kernel records for 2100 replays).
    r = c.activity_enable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    if (r == CUPTI_SUCCESS) {
      s.enabled_kinds.push_back(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
    } else {
      s.warnings.push_back("BRICKPROF_CUDA_GRAPH_TRACE=graph unavailable, graph nodes traced one "
                           "by one: " + cupti_error(c, r));
    }
  }
  s.activity_on = true;
  return true;
}

void stop_activity(GpuState& s) {
  s.activity_on = false;
  if (s.enabled_kinds.empty()) return;
  for (CUpti_ActivityKind kind : s.enabled_kinds) s.cupti.activity_disable(kind);
  s.enabled_kinds.clear();
  s.cupti.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void flush_activity(GpuState& s) {
  if (!s.activity_on || s.cupti.activity_flush_all == nullptr) return;
  s.cupti.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // Drops are otherwise read when a buffer comes back; ones after the last
  // buffer (no space left, nothing more delivered) would go uncounted.
  size_t dropped = 0;
  if (s.cupti.activity_get_num_dropped(nullptr, 0, &dropped) == CUPTI_SUCCESS)
    s.dropped_records.fetch_add(dropped);
}

}  // namespace brickprof::agent
