// A minimal structural scanner for JSON text: finds where a value ends and
// cuts large arrays into batches of whole elements, so the trace reader can
// stream multi-gigabyte files through simdjson a megabyte or so at a time.
// It checks nesting, bracket kinds and string quoting only; simdjson
// validates the rest.
#pragma once

#include <cstddef>
#include <string_view>

namespace brickprof {

inline constexpr size_t kScanFailed = static_cast<size_t>(-1);

size_t skip_json_space(std::string_view text, size_t i);
// `i` at an opening quote: index just past the closing quote, or kScanFailed.
size_t json_string_end(std::string_view text, size_t i);
// `i` at the first character of a value: index just past it, or kScanFailed
// (truncated, or unbalanced brackets). A scalar ends at text.size() when the
// text does. `ran_out`, if given, says whether the text ended first (so a
// longer text might complete the value) rather than the brackets not matching.
size_t json_value_end(std::string_view text, size_t i, bool* ran_out = nullptr);

// One run of whole array elements: text[begin, end) holds them; `next` is
// where the following run starts (after the comma), or, when `last`, the
// index just past the array's ']'.
struct ArrayBatch {
  size_t end = kScanFailed;
  size_t next = kScanFailed;
  bool last = false;
  bool ran_out = false;  // end == kScanFailed because the text ended
};
// `begin` at the first character of an element (outside any string): the
// shortest run of elements reaching `min_bytes`, cut only after an element
// that is an object or array; end == kScanFailed when the text is truncated
// (ran_out) or its brackets do not match.
ArrayBatch next_json_array_batch(std::string_view text, size_t begin, size_t min_bytes);

// `i` at '[' of an array: calls on_batch(begin, end) for runs of whole
// elements of about `batch_bytes` (text[begin, end) holds elements separated
// by commas, possibly followed by spaces) and returns the index just past
// ']', or kScanFailed.
template <typename OnBatch>
size_t scan_json_array(std::string_view text, size_t i, size_t batch_bytes, OnBatch on_batch) {
  size_t begin = skip_json_space(text, i + 1);
  if (begin < text.size() && text[begin] == ']') return begin + 1;
  while (true) {
    ArrayBatch b = next_json_array_batch(text, begin, batch_bytes);
    if (b.end == kScanFailed) return kScanFailed;
    on_batch(begin, b.end);
    if (b.last) return b.next;
    begin = skip_json_space(text, b.next);
  }
}

}  // namespace brickprof
