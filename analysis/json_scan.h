// A minimal structural scanner for JSON text: finds where a value ends and
// cuts large arrays into batches of whole elements, so the trace reader can
// stream multi-gigabyte files through simdjson a few megabytes at a time.
// It checks nesting and string quoting only; simdjson validates the rest.
#pragma once

#include <cstddef>
#include <string_view>

namespace brickprof {

inline constexpr size_t kScanFailed = static_cast<size_t>(-1);

size_t skip_json_space(std::string_view text, size_t i);
// `i` at an opening quote: index just past the closing quote, or kScanFailed.
size_t json_string_end(std::string_view text, size_t i);
// `i` at the first character of a value: index just past it, or kScanFailed
// (truncated, or unbalanced brackets).
size_t json_value_end(std::string_view text, size_t i);

// `i` at '[' of an array: calls on_batch(begin, end, count) for runs of whole
// elements of about `batch_bytes` (text[begin, end) holds `count` elements
// separated by commas) and returns the index just past ']', or kScanFailed.
template <typename OnBatch>
size_t scan_json_array(std::string_view text, size_t i, size_t batch_bytes, OnBatch on_batch) {
  ++i;  // '['
  i = skip_json_space(text, i);
  if (i < text.size() && text[i] == ']') return i + 1;
  size_t begin = i, count = 0;
  while (i < text.size()) {
    size_t end = json_value_end(text, i);
    if (end == kScanFailed) return kScanFailed;
    ++count;
    size_t next = skip_json_space(text, end);
    if (next >= text.size()) return kScanFailed;
    if (text[next] == ']') {
      on_batch(begin, end, count);
      return next + 1;
    }
    if (text[next] != ',') return kScanFailed;
    if (end - begin >= batch_bytes) {
      on_batch(begin, end, count);
      begin = skip_json_space(text, next + 1);
      count = 0;
    }
    i = skip_json_space(text, next + 1);
  }
  return kScanFailed;
}

}  // namespace brickprof
