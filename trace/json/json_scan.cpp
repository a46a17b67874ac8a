// Structural JSON scanning for the streaming trace reader (see json_scan.h).
// Containers are scanned 64 bytes at a time with bit masks (the technique of
// simdjson's stage 1): quotes not escaped by a backslash run toggle an
// in-string mask by prefix XOR, and only brackets outside strings are visited
// one by one. A byte-at-a-time walk cost a fifth of the reader's time.
#include "trace/json/json_scan.h"

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace brickprof {
namespace {

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

struct BlockMasks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// Bit k of each mask describes byte p[k].
BlockMasks classify(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  for (int k = 0; k < 4; ++k) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    // '[' | 0x20 == '{' and ']' | 0x20 == '}': one compare per pair.
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    auto bits = [&](__m128i x, char c) {
      return static_cast<uint64_t>(
                 static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c)))))
             << (16 * k);
    };
    m.quote |= bits(v, '"');
    m.backslash |= bits(v, '\\');
    m.open |= bits(folded, '{');
    m.close |= bits(folded, '}');
  }
#else
  for (int k = 0; k < 64; ++k) {
    uint64_t bit = uint64_t{1} << k;
    char c = static_cast<char>(p[k] | 0x20);
    if (p[k] == '"') m.quote |= bit;
    if (p[k] == '\\') m.backslash |= bit;
    if (c == '{') m.open |= bit;
    if (c == '}') m.close |= bit;
  }
#endif
  return m;
}

// Bit k set: an odd number of quote bits at or below k.
uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// Walks the brackets outside strings, in order, from a position outside any
// string (no escape pending).
class BracketScanner {
 public:
  BracketScanner(std::string_view text, size_t from) : text_(text), base_(from) {
    if (from < text.size()) load();
  }

  // Index of the next '{' '[' '}' or ']' outside strings; kScanFailed at the end.
  size_t next() {
    while (bits_ == 0) {
      base_ += 64;
      if (base_ >= text_.size()) return kScanFailed;
      load();
    }
    size_t at = base_ + static_cast<size_t>(__builtin_ctzll(bits_));
    bits_ &= bits_ - 1;
    return at;
  }

 private:
  void load() {
    const char* p = text_.data() + base_;
    char tail[64];
    if (text_.size() - base_ < 64) {  // pad the last block with spaces
      std::memset(tail, ' ', sizeof tail);
      std::memcpy(tail, p, text_.size() - base_);
      p = tail;
    }
    BlockMasks m = classify(p);
    uint64_t in_string = prefix_xor(m.quote & ~escaped(m.backslash)) ^ in_string_;
    in_string_ = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    bits_ = (m.open | m.close) & ~in_string;
  }

  // Characters escaped by a backslash: those after an odd-length run of
  // backslashes, runs carrying over from the previous block.
  uint64_t escaped(uint64_t backslash) {
    if (backslash == 0 && escape_carry_ == 0) return 0;
    constexpr uint64_t kEven = 0x5555555555555555ull;
    backslash &= ~escape_carry_;
    uint64_t follows = backslash << 1 | escape_carry_;
    uint64_t odd_starts = backslash & ~kEven & ~follows;
    uint64_t even_runs = 0;
    escape_carry_ = __builtin_add_overflow(odd_starts, backslash, &even_runs) ? 1 : 0;
    return (kEven ^ (even_runs << 1)) & follows;
  }

  std::string_view text_;
  size_t base_;
  uint64_t bits_ = 0;
  uint64_t in_string_ = 0;  // all ones while a string runs past the block
  uint64_t escape_carry_ = 0;
};

// Expected closing brackets of the open containers; deeper input is refused
// (a trace nests a few levels, and nothing here recurses).
class BracketStack {
 public:
  bool push(char open) {
    if (depth_ == sizeof close_) return false;
    close_[depth_++] = open == '{' ? '}' : ']';
    return true;
  }
  bool pop(char close) {
    if (depth_ == 0 || close_[depth_ - 1] != close) return false;
    --depth_;
    return true;
  }
  size_t depth() const { return depth_; }

 private:
  char close_[256];
  size_t depth_ = 0;
};

}  // namespace

size_t skip_json_space(std::string_view t, size_t i) {
  while (i < t.size() && is_space(t[i])) ++i;
  return i;
}

size_t json_string_end(std::string_view t, size_t i) {
  ++i;
  while (i < t.size()) {
    const void* q = std::memchr(t.data() + i, '"', t.size() - i);
    if (!q) return kScanFailed;
    size_t at = static_cast<size_t>(static_cast<const char*>(q) - t.data());
    size_t slashes = 0;
    while (at - slashes > i && t[at - slashes - 1] == '\\') ++slashes;
    if (slashes % 2 == 0) return at + 1;  // not escaped
    i = at + 1;
  }
  return kScanFailed;
}

size_t json_value_end(std::string_view t, size_t i, bool* ran_out) {
  bool ignored;
  bool& out_of_text = ran_out ? *ran_out : ignored;
  out_of_text = true;
  if (i >= t.size()) return kScanFailed;
  if (t[i] == '"') return json_string_end(t, i);
  if (t[i] != '{' && t[i] != '[') {  // a scalar: up to the next delimiter or space
    while (i < t.size() && !is_space(t[i]) && t[i] != ',' && t[i] != ':' && t[i] != '}' &&
           t[i] != ']')
      ++i;
    return i;
  }
  BracketScanner scan(t, i);
  BracketStack stack;
  out_of_text = false;
  for (size_t at = scan.next(); at != kScanFailed; at = scan.next()) {
    if (t[at] == '{' || t[at] == '[') {
      if (!stack.push(t[at])) return kScanFailed;
    } else {
      if (!stack.pop(t[at])) return kScanFailed;
      if (stack.depth() == 0) return at + 1;
    }
  }
  out_of_text = true;
  return kScanFailed;
}

ArrayBatch next_json_array_batch(std::string_view t, size_t begin, size_t min_bytes) {
  BracketScanner scan(t, begin);
  BracketStack stack;
  stack.push('[');  // the array's own
  for (size_t at = scan.next(); at != kScanFailed; at = scan.next()) {
    if (t[at] == '{' || t[at] == '[') {
      if (!stack.push(t[at])) return {};
      continue;
    }
    if (!stack.pop(t[at])) return {};
    if (stack.depth() == 0) return {at, at + 1, true};  // the array's ']'
    if (stack.depth() == 1 && at + 1 - begin >= min_bytes) {
      size_t comma = skip_json_space(t, at + 1);
      if (comma < t.size() && t[comma] == ',') return {at + 1, comma + 1, false};
    }
  }
  ArrayBatch ran_out;
  ran_out.ran_out = true;
  return ran_out;
}

}  // namespace brickprof
