// Feeds a large JSON array to simdjson a megabyte or so at a time: runs of
// whole elements are cut by json_scan, copied into a padded buffer and
// indexed (simdjson's stage 1) on a second thread while the caller walks the
// previous run, so cutting, copying and indexing overlap the reader's work.
#pragma once

#include <simdjson.h>

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include "trace/json/json_scan.h"

namespace brickprof {

struct JsonBatch {
  simdjson::ondemand::document doc;  // the run as one array: "[" elements "]"
  size_t begin = 0;                  // the elements' span in the text
  size_t end = 0;
  bool scan_failed = false;                        // truncated, or brackets do not match
  simdjson::error_code error = simdjson::SUCCESS;  // from indexing the run

 private:
  friend class JsonArrayBatches;
  simdjson::ondemand::parser parser_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;
  bool ready_ = false;
};

class JsonArrayBatches {
 public:
  // Text that grows while it is read (a file being inflated): returns the
  // text with more at its end (same start), or as it was at the end.
  using MoreText = std::function<std::string_view()>;

  // `open` at the array's '['. When more than two batches of text follow
  // (`expected_size` of it in all, for growing text) and there is a second
  // core, runs are cut (and `more` called) on a second thread; otherwise in
  // the caller's, on demand.
  JsonArrayBatches(std::string_view text, size_t open, size_t batch_bytes, MoreText more = {},
                   size_t expected_size = 0);
  ~JsonArrayBatches();
  JsonArrayBatches(const JsonArrayBatches&) = delete;
  JsonArrayBatches& operator=(const JsonArrayBatches&) = delete;

  // The next run (the previous one is handed back and must be done with);
  // nullptr after the last one or after one that failed.
  JsonBatch* next();
  // Index just past the array's ']' once next() returned nullptr without a
  // failed batch before it.
  size_t end() const { return end_; }

 private:
  bool produce(JsonBatch& slot);
  ArrayBatch cut_next();
  void run();

  std::string_view text_;
  MoreText more_;
  size_t batch_bytes_;
  size_t begin_ = 0;  // where the next run starts
  size_t end_ = 0;
  bool finished_ = false;  // no run left to cut (guarded by mutex_ when threaded)
  JsonBatch slots_[2];
  int current_ = -1;  // slot handed to the caller
  bool threaded_ = false;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread producer_;
};

}  // namespace brickprof
