// The fake CUPTI's activity API. As in CUPTI, records are written into
// buffers the client supplies (asked for on the thread doing the work); a
// full buffer is handed back from a delivery thread of the fake's own, and
// a flush hands back everything else. Records that find no buffer, records
// of a context destroyed before they were delivered, and
// FAKE_CUPTI_DROP_KERNELS victims are counted as dropped. Enabled kinds are
// collected until disabled, with or without a subscriber; work done while
// its kind is disabled generates no record at all, as in CUPTI.
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cupti_state.h"
#include "driver_state.h"
#include "fake_cuda.h"
#include "fork_child.h"

using namespace fake_cupti;

namespace {

// In front of each record in a buffer; clients never see it.
struct RecordHeader {
  uint32_t size;
  uint32_t context;
};
static_assert(sizeof(RecordHeader) == 8, "records stay 8-byte aligned");

// The context of a record discarded after it was written.
constexpr uint32_t kDiscarded = UINT32_MAX;

size_t entry_bytes(const RecordHeader& h) { return sizeof h + (h.size + 7u) / 8u * 8u; }

RecordHeader header_at(const uint8_t* p) {
  RecordHeader h;
  std::memcpy(&h, p, sizeof h);
  return h;
}

using Buffer = State::Buffer;

bool supported(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
    case CUPTI_ACTIVITY_KIND_MEMORY2:      // driver_memory.cpp
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
      return true;
    default:
      return false;
  }
}

void deliver(const Buffer& b) {
  CUpti_BuffersCallbackCompleteFunc complete;
  {
    std::lock_guard<std::mutex> lock(state().mu);
    complete = state().buffer_completed;
  }
  if (complete != nullptr) complete(nullptr, 0, b.data, b.size, b.used);
}

// Hands full buffers back, oldest first, as CUPTI's own thread does.
void delivery_loop() {
  State& s = state();
  for (;;) {
    std::unique_lock<std::mutex> in_order(s.deliver_mu);
    Buffer b;
    {
      std::unique_lock<std::mutex> lock(s.records_mu);
      if (s.full.empty()) {
        in_order.unlock();  // a flush may deliver meanwhile
        s.full_ready.wait(lock, [&] { return !s.full.empty(); });
        continue;
      }
      b = s.full.front();
      s.full.pop_front();
    }
    deliver(b);
  }
}

// A fresh client buffer for `s.filling`; false (and nothing kept) if the
// client refused or gave one CUPTI could not use. Called under records_mu.
bool request_buffer(State& s) {
  CUpti_BuffersCallbackRequestFunc request;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    request = s.buffer_requested;
  }
  if (request == nullptr) return false;
  Buffer b;
  size_t max_records = 0;  // the fake fills buffers whole, whatever this says
  request(&b.data, &b.size, &max_records);
  // Refused, or not 8-byte aligned as CUPTI requires.
  if (b.data == nullptr || b.size == 0 || reinterpret_cast<uintptr_t>(b.data) % 8 != 0)
    return false;
  s.filling = b;
  return true;
}

// Marks the records of `context` in `b` discarded; returns how many.
uint64_t discard_in(Buffer& b, uint32_t context) {
  uint64_t n = 0;
  for (size_t at = 0; at < b.used;) {
    RecordHeader h = header_at(b.data + at);
    if (h.context == context) {
      h.context = kDiscarded;
      std::memcpy(b.data + at, &h, sizeof h);
      ++n;
    }
    at += entry_bytes(h);
  }
  return n;
}

// FAKE_CUPTI_REPORT_RECORDS: a test reads from stderr what reached the client.
__attribute__((destructor)) void report_records_written() {
  if (std::getenv(fake_cuda::kEnvReportRecords) == nullptr) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  std::fprintf(stderr,
               "fake CUPTI: %llu records written to client buffers, %llu kernel records "
               "generated\n",
               static_cast<unsigned long long>(s.written),
               static_cast<unsigned long long>(s.kernel_records_generated));
}

}  // namespace

namespace fake_cupti {

State& state() {
  static State* s = [] {
    auto* st = new State();
    for (std::mutex* m : {&st->mu, &st->records_mu, &st->deliver_mu}) fake_cuda::renew_in_fork_child(m);
    if (const char* n = std::getenv(fake_cuda::kEnvDropKernels))
      st->kernels_to_drop = std::strtoull(n, nullptr, 10);
    return st;
  }();
  return *s;
}

uint64_t timestamp() {
  if (CUpti_TimestampCallbackFunc f = state().timestamp.load()) return f();
  timespec ts;  // CUPTI's own clock, unrelated to the client's
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

bool wants(CUpti_ActivityKind kind) {
  return kind > CUPTI_ACTIVITY_KIND_INVALID && kind < CUPTI_ACTIVITY_KIND_COUNT &&
         state().kinds[kind].load();
}

void queue_record(const CUpti_Activity* record, size_t size, uint32_t context) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  bool kernel = record->kind == CUPTI_ACTIVITY_KIND_KERNEL ||
                record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  if (kernel) ++s.kernel_records_generated;
  if (kernel && s.kernels_to_drop > 0) {
    --s.kernels_to_drop;
    ++s.dropped;
    return;
  }
  RecordHeader h{static_cast<uint32_t>(size), context};
  size_t bytes = entry_bytes(h);
  if (s.filling.data != nullptr && s.filling.used + bytes > s.filling.size) {
    s.full.push_back(s.filling);
    s.filling = Buffer{};
    if (!s.delivery_thread) {
      s.delivery_thread = true;
      std::thread(delivery_loop).detach();
    }
    s.full_ready.notify_one();
  }
  if (s.filling.data == nullptr && !request_buffer(s)) {
    ++s.dropped;
    return;
  }
  if (bytes > s.filling.size) {  // larger than a whole buffer
    ++s.dropped;
    return;
  }
  uint8_t* at = s.filling.data + s.filling.used;
  std::memcpy(at, &h, sizeof h);
  std::memcpy(at + sizeof h, record, size);
  std::memset(at + sizeof h + size, 0, bytes - sizeof h - size);
  s.filling.used += bytes;
  ++s.written;
}

void discard_context(uint32_t context) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  s.dropped += discard_in(s.filling, context);
  for (Buffer& b : s.full) s.dropped += discard_in(b, context);
}

}  // namespace fake_cupti

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  static std::atomic<long> calls{0};
  static const long failing_call = [] {
    const char* n = std::getenv(fake_cuda::kEnvFailActivityEnable);
    return n != nullptr ? std::atol(n) : 0L;
  }();
  if (++calls == failing_call) return CUPTI_ERROR_NOT_COMPATIBLE;
  if (!supported(kind)) return CUPTI_ERROR_INVALID_KIND;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.kinds[kind].store(true);
  attach_tool_if_needed(s);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (!supported(kind)) return CUPTI_ERROR_INVALID_KIND;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.kinds[kind].store(false);
  attach_tool_if_needed(s);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  if (requested == nullptr || completed == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.buffer_requested = requested;
  s.buffer_completed = completed;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc f) {
  if (f == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  state().timestamp.store(f);
  return CUPTI_SUCCESS;
}

// Every record counts as completed, so forced or not, all buffers go back.
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t /*flag*/) {
  State& s = state();
  std::lock_guard<std::mutex> in_order(s.deliver_mu);
  std::deque<Buffer> buffers;
  {
    std::lock_guard<std::mutex> lock(s.records_mu);
    buffers.swap(s.full);
    if (s.filling.used > 0) {
      buffers.push_back(s.filling);
      s.filling = Buffer{};
    }
  }
  for (const Buffer& b : buffers) deliver(b);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size,
                                                CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t at = 0;
  if (*record != nullptr) {
    const uint8_t* current = reinterpret_cast<const uint8_t*>(*record) - sizeof(RecordHeader);
    at = static_cast<size_t>(current - buffer) + entry_bytes(header_at(current));
  }
  // Records of a destroyed context stay in the buffer but are never seen.
  while (at + sizeof(RecordHeader) <= valid_size && header_at(buffer + at).context == kDiscarded)
    at += entry_bytes(header_at(buffer + at));
  if (at + sizeof(RecordHeader) > valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  static const long unreadable = [] {
    const char* n = std::getenv(fake_cuda::kEnvUnreadableRecord);
    return n != nullptr ? std::atol(n) : 0L;
  }();
  if (unreadable > 0) {
    long index = 1;  // of this record in the buffer
    for (size_t p = 0; p < at; p += entry_bytes(header_at(buffer + p))) ++index;
    if (index == unreadable) return CUPTI_ERROR_INVALID_KIND;
  }
  *record = reinterpret_cast<CUpti_Activity*>(buffer + at + sizeof(RecordHeader));
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext /*context*/, uint32_t /*stream*/,
                                                       size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  *dropped = static_cast<size_t>(s.dropped);
  s.dropped = 0;  // "since the last call", as CUPTI documents
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t* device) {
  if (context == nullptr || device == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *device = static_cast<uint32_t>(context->device);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphNodeId(CUgraphNode node, uint64_t* id) {
  if (node == nullptr || id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *id = node->id;
  return CUPTI_SUCCESS;
}
