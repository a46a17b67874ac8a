// The fake CUPTI's activity API: records the driver queues are kept until
// a flush, then handed over in buffers the client supplies, as CUPTI does.
// Records that find no buffer, records of a context destroyed before a
// flush, and FAKE_CUPTI_DROP_KERNELS victims are counted as dropped.
#include <time.h>

#include <cstdlib>
#include <cstring>

#include "cupti_state.h"
#include "driver_state.h"
#include "fake_cuda.h"

using namespace fake_cupti;

namespace {

// In front of each queued and delivered record; clients never see it.
struct RecordHeader {
  uint32_t size;
  uint32_t context;
};
static_assert(sizeof(RecordHeader) == 8, "records stay 8-byte aligned");

size_t entry_bytes(const RecordHeader& h) { return sizeof h + (h.size + 7u) / 8u * 8u; }

RecordHeader header_at(const uint8_t* p) {
  RecordHeader h;
  std::memcpy(&h, p, sizeof h);
  return h;
}

uint64_t count_records(const std::vector<uint8_t>& records, size_t from) {
  uint64_t n = 0;
  for (size_t at = from; at < records.size(); at += entry_bytes(header_at(&records[at]))) ++n;
  return n;
}

void add_dropped(uint64_t n) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  s.dropped += n;
}

bool supported(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_MEMCPY:
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
    case CUPTI_ACTIVITY_KIND_MEMSET:
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return true;
    default:
      return false;
  }
}

}  // namespace

namespace fake_cupti {

State& state() {
  static State* s = [] {
    auto* st = new State();
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
  if (kernel && s.kernels_to_drop > 0) {
    --s.kernels_to_drop;
    ++s.dropped;
    return;
  }
  RecordHeader h{static_cast<uint32_t>(size), context};
  size_t at = s.pending.size();
  s.pending.resize(at + entry_bytes(h), 0);
  std::memcpy(&s.pending[at], &h, sizeof h);
  std::memcpy(&s.pending[at + sizeof h], record, size);
}

void discard_context(uint32_t context) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.records_mu);
  std::vector<uint8_t> kept;
  for (size_t at = 0; at < s.pending.size();) {
    RecordHeader h = header_at(&s.pending[at]);
    size_t n = entry_bytes(h);
    if (h.context == context) {
      ++s.dropped;
    } else {
      kept.insert(kept.end(), s.pending.begin() + static_cast<ptrdiff_t>(at),
                  s.pending.begin() + static_cast<ptrdiff_t>(at + n));
    }
    at += n;
  }
  s.pending.swap(kept);
}

}  // namespace fake_cupti

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (!supported(kind)) return CUPTI_ERROR_INVALID_KIND;
  state().kinds[kind].store(true);
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

// Every queued record counts as completed, so forced or not, all go.
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t /*flag*/) {
  State& s = state();
  std::lock_guard<std::mutex> in_order(s.deliver_mu);
  std::vector<uint8_t> records;
  {
    std::lock_guard<std::mutex> lock(s.records_mu);
    records.swap(s.pending);
  }
  CUpti_BuffersCallbackRequestFunc request;
  CUpti_BuffersCallbackCompleteFunc complete;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    request = s.buffer_requested;
    complete = s.buffer_completed;
  }
  size_t at = 0;
  while (at < records.size() && request != nullptr) {
    uint8_t* buffer = nullptr;
    size_t size = 0;
    size_t max_records = 0;
    request(&buffer, &size, &max_records);
    // Refused, or not 8-byte aligned as CUPTI requires: the rest is lost.
    if (buffer == nullptr || size == 0 || reinterpret_cast<uintptr_t>(buffer) % 8 != 0) break;
    size_t used = 0;
    size_t n = 0;
    while (at < records.size() && (max_records == 0 || n < max_records)) {
      size_t bytes = entry_bytes(header_at(&records[at]));
      if (used + bytes > size) break;
      std::memcpy(buffer + used, &records[at], bytes);
      used += bytes;
      at += bytes;
      ++n;
    }
    if (n == 0) {  // a record larger than the whole buffer
      add_dropped(1);
      at += entry_bytes(header_at(&records[at]));
    }
    complete(nullptr, 0, buffer, size, used);
  }
  add_dropped(count_records(records, at));
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
  if (at + sizeof(RecordHeader) > valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
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

CUptiResult CUPTIAPI cuptiGetGraphNodeId(CUgraphNode node, uint64_t* id) {
  if (node == nullptr || id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *id = node->id;
  return CUPTI_SUCCESS;
}
