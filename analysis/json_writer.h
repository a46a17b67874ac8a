// A small streaming JSON writer: appends to a buffer and flushes to a stream,
// so multi-gigabyte traces are written without building a document in memory.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) { buffer_.reserve(kFlushAt + 4096); }
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(long long v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(unsigned long long v) { return value(static_cast<uint64_t>(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  // 64-bit hashes as "0x%016x" strings: JSON numbers lose bits above 2^53.
  JsonWriter& hex(uint64_t v);
  // Already formatted JSON as the next value, as it is (for a reader that
  // wants a particular spelling, such as HTA's "rank": N).
  JsonWriter& raw(std::string_view json);
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }
  // Starts a new line before the next element (keeps big arrays diffable).
  JsonWriter& newline();
  void flush();

 private:
  void separate();
  template <typename Number>
  JsonWriter& number(Number v);
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }

  static constexpr size_t kFlushAt = 1 << 20;
  std::ostream& out_;
  std::string buffer_;
  std::vector<uint8_t> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// Appends `text` to `out` as a quoted, escaped JSON string.
void append_json_string(std::string& out, std::string_view text);

}  // namespace brickprof
