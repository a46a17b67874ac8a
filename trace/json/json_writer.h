// A small streaming JSON writer: appends to a buffer and flushes to a stream,
// so multi-gigabyte traces are written without building a document in memory.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof {

// Appends `text` to `out` as a quoted, escaped JSON string.
void append_json_string(std::string& out, std::string_view text);
// The same at `out`, which has room for json_string_bytes(text) bytes;
// returns the end of what was written.
inline size_t json_string_bytes(std::string_view text) { return 2 + 6 * text.size(); }
char* write_json_string(char* out, std::string_view text);

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out)
      : out_(out), buffer_(new char[kFlushAt + 4096]), capacity_(kFlushAt + 4096) {}
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

  // For writers of millions of small elements (the trace's nodes): room
  // for at most `max_bytes` of one element of the current array, after its
  // separator, for the caller to write valid JSON into; end_raw_element()
  // takes the end of what it wrote.
  char* begin_raw_element(size_t max_bytes);
  void end_raw_element(const char* end);

 private:
  void separate();
  template <typename Number>
  JsonWriter& number(Number v);
  void maybe_flush() {
    if (size_ >= kFlushAt) flush();
  }
  // Room for `n` more bytes at buffer_ + size_ (grows only for an element
  // larger than the slack above kFlushAt: a huge name).
  char* room(size_t n) {
    if (size_ + n > capacity_) grow(n);
    return buffer_.get() + size_;
  }
  void grow(size_t n);
  void put(char c) {
    *room(1) = c;
    ++size_;
  }
  void put(std::string_view text) {
    std::memcpy(room(text.size()), text.data(), text.size());
    size_ += text.size();
  }
  void put_string(std::string_view text) {
    size_ =
        static_cast<size_t>(write_json_string(room(json_string_bytes(text)), text) - buffer_.get());
  }

  static constexpr size_t kFlushAt = 1 << 20;
  std::ostream& out_;
  std::unique_ptr<char[]> buffer_;
  size_t size_ = 0;
  size_t capacity_;
  std::vector<uint8_t> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace brickprof
