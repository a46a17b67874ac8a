// Streaming JSON writer (see json_writer.h).
#include "analysis/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace brickprof {

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char esc[8];
          std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
          out += esc;
        } else {
          out.push_back(c);
        }
    }
  }
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

JsonWriter& JsonWriter::value(int64_t v) {
  separate();
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buffer_.append(tmp, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t v) {
  separate();
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buffer_.append(tmp, r.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();  // JSON has no NaN or infinity
  separate();
  char tmp[32];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  buffer_.append(tmp, r.ptr);
  return *this;
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

JsonWriter& JsonWriter::hex(uint64_t v) {
  separate();
  char tmp[24];
  std::snprintf(tmp, sizeof tmp, "\"0x%016llx\"", static_cast<unsigned long long>(v));
  buffer_ += tmp;
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
