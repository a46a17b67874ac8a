// Streaming JSON writer (see json_writer.h).
#include "trace/json/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "trace/model/hash_text.h"
#include "trace/model/printable.h"

namespace brickprof {

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
    if (c != '"' && c != '\\' && byte >= 0x20 && byte < 0x7f) continue;
    unsigned char escaped = byte;  // DEL and the C1 controls, as \u00XX
    if (byte >= 0x80) {
      // Names come from the program (NVTX, argv, thread names) in any
      // encoding; JSON must be UTF-8, so a byte that starts no well-formed
      // sequence becomes U+FFFD and the trace stays readable.
      const size_t length = utf8_sequence_length(text, i);
      const auto second = length ? static_cast<unsigned char>(text[i + 1]) : 0;
      const auto third = length == 3 ? static_cast<unsigned char>(text[i + 2]) : 0;
      // A C1 control (U+0080..U+009F: some terminals act on U+009B as CSI)
      // or a bidi override or isolate (U+202A..U+202E, U+2066..U+2069: they
      // reorder the line), spelled out so `report --json` on a terminal is
      // as safe as the text views (printable.h).
      const bool c1 = byte == 0xC2 && second < 0xA0;
      const bool bidi = byte == 0xE2 && ((second == 0x80 && third >= 0xAA && third <= 0xAE) ||
                                         (second == 0x81 && third >= 0xA6 && third <= 0xA9));
      if (length && !c1 && !bidi) {
        i += length - 1;
        continue;
      }
      copy_run(i);
      if (!length) {
        run = i + 1;
        std::memcpy(out, "\\ufffd", 6);
        out += 6;
        continue;
      }
      run = i + length;
      i += length - 1;
      if (bidi) {
        const unsigned code = (second & 0x3Fu) << 6 | (third & 0x3Fu) | 0x2000u;
        std::memcpy(out, "\\u20", 4);
        out[4] = "0123456789abcdef"[(code >> 4) & 0xF];
        out[5] = "0123456789abcdef"[code & 0xF];
        out += 6;
        continue;
      }
      escaped = second;
    } else {
      copy_run(i);
      run = i + 1;
    }
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
        out[3] = "0123456789abcdef"[escaped >> 4];
        out[4] = "0123456789abcdef"[escaped & 0xF];
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
