// The fake CUPTI's state: the one subscriber and what it enabled, the
// activity callbacks, and the client buffers records are written into.
// Allocated once and never freed (clients flush from exit handlers).
#pragma once

#include <cupti.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace fake_cupti {

inline constexpr uint32_t kMaxCbid = 1024;

struct State {
  // The subscriber; written under `mu`, read lock-free on API calls.
  std::mutex mu;
  std::atomic<bool> subscribed{false};
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  std::atomic<bool> enabled[CUPTI_CB_DOMAIN_SIZE][kMaxCbid] = {};

  // Activity.
  std::atomic<bool> kinds[CUPTI_ACTIVITY_KIND_COUNT] = {};
  std::atomic<CUpti_TimestampCallbackFunc> timestamp{nullptr};
  CUpti_BuffersCallbackRequestFunc buffer_requested = nullptr;  // under `mu`
  CUpti_BuffersCallbackCompleteFunc buffer_completed = nullptr;

  // Records go straight into buffers the client hands out, as in CUPTI:
  // each is a RecordHeader, then the record padded to 8 bytes. A full
  // buffer goes to the delivery thread; a flush delivers the rest.
  struct Buffer {
    uint8_t* data = nullptr;
    size_t size = 0;
    size_t used = 0;
  };
  std::mutex records_mu;
  Buffer filling;
  std::deque<Buffer> full;
  std::condition_variable full_ready;
  bool delivery_thread = false;
  uint64_t dropped = 0;          // since the client last asked
  uint64_t written = 0;          // into client buffers, ever (FAKE_CUPTI_REPORT_RECORDS)
  // Kernel records generated, kept or dropped: work done while its kind
  // was disabled generates none (FAKE_CUPTI_REPORT_RECORDS).
  uint64_t kernel_records_generated = 0;
  uint64_t kernels_to_drop = 0;  // FAKE_CUPTI_DROP_KERNELS

  // Held while buffers are handed back, so they arrive in order. Taken
  // before records_mu, never after.
  std::mutex deliver_mu;
};

State& state();

// Points the fake driver at the fake CUPTI while a subscriber or an enabled
// activity kind needs it. As in CUPTI, activity does not depend on the
// subscriber: it goes on after cuptiUnsubscribe until disabled. Under `mu`.
void attach_tool_if_needed(State& s);

// The table the fake driver reports through (cupti_activity.cpp, callbacks
// in cupti_callbacks.cpp).
void forward_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
uint64_t timestamp();
bool wants(CUpti_ActivityKind kind);
void queue_record(const CUpti_Activity* record, size_t size, uint32_t context);
void discard_context(uint32_t context);
// The range profiler's view of each driver call (cupti_range_profiler.cpp).
void range_profiler_saw(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

}  // namespace fake_cupti
