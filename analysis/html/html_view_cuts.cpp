// A report view's JSON with its long lists cut (see html_view_cuts.h): one
// scan that follows strings and nesting, no parse tree.
#include "analysis/html/html_view_cuts.h"

namespace brickprof {
namespace {

constexpr size_t kPassOnAt = 1 << 16;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

void ListCutBuf::finish() {
  if (buffer_.empty()) return;
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

ListCutBuf::int_type ListCutBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  feed(&ch, 1);
  return c;
}

std::streamsize ListCutBuf::xsputn(const char* data, std::streamsize n) {
  feed(data, static_cast<size_t>(n));
  return n;
}

int ListCutBuf::sync() {
  finish();
  return out_ ? 0 : -1;
}

// Between the entries of a list (depth 2, outside strings): holds commas
// until the next entry shows whether it is kept, counts entries, closes the
// list. False for an entry's first character, which the caller then scans.
bool ListCutBuf::in_list(char c) {
  if (c == ']') {
    held_.clear();
    if (entries_ > limit_) cuts_.push_back({key_, limit_, entries_});
    copying_ = true;
    list_ = false;
    --depth_;
    put(c);
    return true;
  }
  if (c == ',' || (is_space(c) && !held_.empty())) {
    entry_open_ = entry_open_ && c != ',';
    if (copying_) held_.push_back(c);
    return true;
  }
  if (is_space(c)) {
    put(c);
    return true;
  }
  if (!entry_open_) {
    entry_open_ = true;
    if (++entries_ > limit_) copying_ = false;
    if (copying_) buffer_ += held_;
    held_.clear();
  }
  return false;
}

void ListCutBuf::feed(const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const char c = data[i];
    if (in_string_) {
      if (escape_)
        escape_ = false;
      else if (c == '\\')
        escape_ = true;
      else if (c == '"')
        in_string_ = false;
      if (key_text_) {
        key_.push_back(c);
        key_text_ = in_string_;
      }
      put(c);
      continue;
    }
    if (list_ && depth_ == 2 && in_list(c)) continue;
    switch (c) {
      case '"':
        in_string_ = true;
        if (depth_ == 1 && object_ && expect_key_) {
          key_text_ = true;
          key_.assign(1, c);
          expect_key_ = false;
        }
        break;
      case '{':
      case '[':
        if (depth_ == 0) {
          object_ = c == '{';
          expect_key_ = object_;
        } else if (depth_ == 1 && object_ && c == '[') {
          list_ = true;
          entry_open_ = false;
          entries_ = 0;
        }
        ++depth_;
        break;
      case '}':
      case ']':
        --depth_;
        break;
      case ',':
        if (depth_ == 1) expect_key_ = true;
        break;
      default:
        break;
    }
    put(c);
  }
  if (buffer_.size() >= kPassOnAt) finish();
}

}  // namespace brickprof
