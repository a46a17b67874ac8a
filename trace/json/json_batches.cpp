// Cutting and indexing a large JSON array ahead of its reader (see json_batches.h).
#include "trace/json/json_batches.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "trace/json/json_scan.h"

namespace brickprof {

JsonArrayBatches::JsonArrayBatches(std::string_view text, size_t open, size_t batch_bytes,
                                   MoreText more, size_t expected_size)
    : text_(text), more_(std::move(more)), batch_bytes_(batch_bytes) {
  begin_ = skip_json_space(text, open + 1);
  if (begin_ < text.size() && text[begin_] == ']') {
    end_ = begin_ + 1;
    finished_ = true;
    return;
  }
  // A second core pays off only when there is more than one run to overlap.
  const size_t size = std::max(text.size(), expected_size);
  threaded_ =
      size - std::min(begin_, size) > 2 * batch_bytes && std::thread::hardware_concurrency() > 1;
  if (threaded_) producer_ = std::thread([this] { run(); });
}

JsonArrayBatches::~JsonArrayBatches() {
  if (!producer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  producer_.join();
}

// The next run from begin_, asking for more text while it runs past the end.
ArrayBatch JsonArrayBatches::cut_next() {
  while (true) {
    ArrayBatch cut = next_json_array_batch(text_, begin_, batch_bytes_);
    if (cut.end != kScanFailed || !cut.ran_out || !more_) return cut;
    std::string_view grown = more_();
    if (grown.size() <= text_.size()) return cut;
    text_ = grown;
  }
}

// Fills `slot` with the next run; false when it is the last (or failed).
bool JsonArrayBatches::produce(JsonBatch& slot) {
  slot.begin = begin_;
  slot.scan_failed = false;
  slot.error = simdjson::SUCCESS;
  ArrayBatch cut = cut_next();
  if (cut.end == kScanFailed) {
    slot.scan_failed = true;
    return false;
  }
  slot.end = cut.end;
  size_t n = cut.end - begin_, len = n + 2;
  try {
    if (len + simdjson::SIMDJSON_PADDING > slot.capacity_) {
      slot.capacity_ = std::max(len + simdjson::SIMDJSON_PADDING, 2 * slot.capacity_);
      slot.buffer_.reset();
      slot.buffer_ = std::make_unique<char[]>(slot.capacity_);
    }
  } catch (const std::bad_alloc&) {
    slot.capacity_ = 0;
    slot.error = simdjson::MEMALLOC;
    return false;
  }
  char* out = slot.buffer_.get();
  out[0] = '[';
  std::memcpy(out + 1, text_.data() + begin_, n);
  out[n + 1] = ']';
  std::memset(out + len, 0, simdjson::SIMDJSON_PADDING);
  slot.error = slot.parser_.iterate(out, len, slot.capacity_).get(slot.doc);
  if (slot.error) return false;
  if (cut.last) {
    end_ = cut.next;
    return false;
  }
  begin_ = skip_json_space(text_, cut.next);
  return true;
}

void JsonArrayBatches::run() {
  for (int p = 0;; p ^= 1) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || !slots_[p].ready_; });
      if (stop_) return;
    }
    bool more = produce(slots_[p]);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slots_[p].ready_ = true;
      finished_ = !more;
    }
    changed_.notify_all();
    if (!more) return;
  }
}

JsonBatch* JsonArrayBatches::next() {
  if (!threaded_) {
    if (finished_) return nullptr;
    finished_ = !produce(slots_[0]);
    current_ = 0;
    return &slots_[0];
  }
  std::unique_lock<std::mutex> lock(mutex_);
  int want = 0;
  if (current_ >= 0) {  // hand the previous run back
    slots_[current_].ready_ = false;
    want = current_ ^ 1;
    changed_.notify_all();
  } else if (current_ == -2) {
    return nullptr;
  }
  changed_.wait(lock, [&] { return slots_[want].ready_ || finished_; });
  if (!slots_[want].ready_) {
    current_ = -2;  // past the end
    return nullptr;
  }
  current_ = want;
  return &slots_[want];
}

}  // namespace brickprof
