// Streaming JSON writer (see json_writer.h).
#include "analysis/json/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "analysis/model/hash_text.h"

namespace brickprof {

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), 0 if there is none.
size_t utf8_sequence(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF)
    length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF)
    length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4)
    length = 4;
  else
    return 0;
  if (lead == 0xE0) low = 0xA0;
  if (lead == 0xED) high = 0x9F;
  if (lead == 0xF0) low = 0x90;
  if (lead == 0xF4) high = 0x8F;
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

char* write_json_string(char* out, std::string_view text) {
  *out++ = '"';
  // Names and labels rarely need escaping: copy each run of plain characters
  // in one go (char by char was a fifth of the time to export a trace).
  size_t run = 0;
  auto copy_run = [&](size_t until) {
    std::memcpy(out, text.data() + run, until - run);
    out += until - run;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c != '"' && c != '\\' && byte >= 0x20 && byte < 0x80) continue;
    if (byte >= 0x80) {
      // Names come from the program (NVTX, argv, thread names) in any
      // encoding; JSON must be UTF-8, so a byte that starts no well-formed
      // sequence becomes U+FFFD and the trace stays readable.
      if (size_t length = utf8_sequence(text, i)) {
        i += length - 1;
        continue;
      }
      copy_run(i);
      run = i + 1;
      std::memcpy(out, "\\ufffd", 6);
      out += 6;
      continue;
    }
    copy_run(i);
    run = i + 1;
    *out++ = '\\';
    switch (c) {
      case '"':
        *out++ = '"';
        break;
      case '\\':
        *out++ = '\\';
        break;
      case '\n':
        *out++ = 'n';
        break;
      case '\r':
        *out++ = 'r';
        break;
      case '\t':
        *out++ = 't';
        break;
      default:
        std::memcpy(out, "u00", 3);
        out[3] = "0123456789abcdef"[byte >> 4];
        out[4] = "0123456789abcdef"[byte & 0xF];
        out += 5;
    }
  }
  copy_run(text.size());
  *out++ = '"';
  return out;
}

void append_json_string(std::string& out, std::string_view text) {
  const size_t old = out.size();
  out.resize(old + json_string_bytes(text));
  char* end = write_json_string(out.data() + old, text);
  out.resize(static_cast<size_t>(end - out.data()));
}

void JsonWriter::grow(size_t n) {
  size_t capacity = std::max(2 * capacity_, size_ + n);
  std::unique_ptr<char[]> bigger(new char[capacity]);
  std::memcpy(bigger.get(), buffer_.get(), size_);
  buffer_ = std::move(bigger);
  capacity_ = capacity;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) put(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  put('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  put('}');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  put('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  put(']');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  put_string(k);
  put(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  separate();
  put_string(v);
  maybe_flush();  // a long string must not grow the buffer without end
  return *this;
}

template <typename Number>
JsonWriter& JsonWriter::number(Number v) {
  separate();
  char* at = room(32);  // shortest round-trip form: at most 24 characters
  size_ = static_cast<size_t>(std::to_chars(at, at + 32, v).ptr - buffer_.get());
  return *this;
}

JsonWriter& JsonWriter::value(int64_t v) { return number(v); }
JsonWriter& JsonWriter::value(uint64_t v) { return number(v); }

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();  // JSON has no NaN or infinity
  return number(v);
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  put(v ? std::string_view("true") : std::string_view("false"));
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  put(std::string_view("null"));
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  put(json);
  return *this;
}

JsonWriter& JsonWriter::hex(uint64_t v) {
  separate();
  char tmp[kHashTextSize + 2];
  tmp[0] = '"';
  *put_hash_text(tmp + 1, v) = '"';
  put(std::string_view(tmp, sizeof tmp));
  return *this;
}

JsonWriter& JsonWriter::newline() {
  put('\n');
  return *this;
}

char* JsonWriter::begin_raw_element(size_t max_bytes) {
  separate();
  return room(max_bytes);
}

void JsonWriter::end_raw_element(const char* end) {
  size_ = static_cast<size_t>(end - buffer_.get());
  maybe_flush();
}

void JsonWriter::flush() {
  if (size_ == 0) return;
  out_.write(buffer_.get(), static_cast<std::streamsize>(size_));
  size_ = 0;
}

}  // namespace brickprof
