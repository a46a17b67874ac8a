// Streaming JSON writer (see json_writer.h).
#include "analysis/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace brickprof {

namespace {

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), 0 if there is none.
size_t utf8_sequence(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length;
  unsigned char low = 0x80, high = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4;
  else return 0;
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

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  // Names and labels rarely need escaping: copy each run of plain characters
  // in one append (char by char was a fifth of the time to export a trace).
  size_t run = 0;
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
      out.append(text.data() + run, i - run);
      run = i + 1;
      out += "\\ufffd";
      continue;
    }
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
        out += esc;
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) buffer_.push_back(',');
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  buffer_.push_back('{');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  buffer_.push_back('}');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  separate();
  buffer_.push_back('[');
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  buffer_.push_back(']');
  first_.pop_back();
  maybe_flush();
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  append_json_string(buffer_, k);
  buffer_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  separate();
  append_json_string(buffer_, v);
  return *this;
}

template <typename Number>
JsonWriter& JsonWriter::number(Number v) {
  separate();
  char tmp[32];  // shortest round-trip form: at most 24 characters
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buffer_.append(tmp, r.ptr);
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
  buffer_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  buffer_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  buffer_ += json;
  return *this;
}

JsonWriter& JsonWriter::hex(uint64_t v) {
  separate();
  char tmp[] = "\"0x0000000000000000\"";
  for (int i = 0; i < 16; ++i) tmp[18 - i] = "0123456789abcdef"[(v >> (4 * i)) & 0xF];
  buffer_.append(tmp, sizeof tmp - 1);
  return *this;
}

JsonWriter& JsonWriter::newline() {
  buffer_.push_back('\n');
  return *this;
}

void JsonWriter::flush() {
  if (buffer_.empty()) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace brickprof
