// Digests of outputs (checksum.h): one pass over the elements.
#include "trace/model/checksum.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace brickprof {
namespace {

constexpr std::array<std::string_view, 9> kTypes = {"bytes", "f32", "f64", "f16", "bf16",
                                                    "i32",   "i64", "i8",  "u8"};
constexpr std::array<std::string_view, 3> kSources = {"program", "host-copy", "device"};

template <typename Enum, size_t N>
bool parse_name(const std::array<std::string_view, N>& names, std::string_view text, Enum* out) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) {
      *out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float value = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -value : value;
  }
  uint32_t bits = sign | ((exponent == 31 ? 255u : exponent + 112u) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float bf16_to_float(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

template <typename T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

double element(const unsigned char* p, ElementType type) {
  switch (type) {
    case ElementType::kF32: return load<float>(p);
    case ElementType::kF64: return load<double>(p);
    case ElementType::kF16: return half_to_float(load<uint16_t>(p));
    case ElementType::kBf16: return bf16_to_float(load<uint16_t>(p));
    case ElementType::kI32: return load<int32_t>(p);
    case ElementType::kI64: return static_cast<double>(load<int64_t>(p));
    case ElementType::kI8: return load<int8_t>(p);
    case ElementType::kBytes:
    case ElementType::kU8: return *p;
  }
  return 0;
}

// splitmix64: a well-mixed 64-bit hash of the element index; its bits are
// the projections' signs.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string_view to_string(ElementType type) { return kTypes[static_cast<size_t>(type)]; }
bool parse(std::string_view text, ElementType* out) { return parse_name(kTypes, text, out); }
std::string_view to_string(ChecksumSource source) { return kSources[static_cast<size_t>(source)]; }
bool parse(std::string_view text, ChecksumSource* out) { return parse_name(kSources, text, out); }

size_t element_bytes(ElementType type) {
  switch (type) {
    case ElementType::kF64:
    case ElementType::kI64: return 8;
    case ElementType::kF32:
    case ElementType::kI32: return 4;
    case ElementType::kF16:
    case ElementType::kBf16: return 2;
    default: return 1;
  }
}

double element_epsilon(ElementType type) {
  switch (type) {
    case ElementType::kF32: return std::numeric_limits<float>::epsilon();
    case ElementType::kF64: return std::numeric_limits<double>::epsilon();
    case ElementType::kF16: return 0x1p-10;
    case ElementType::kBf16: return 0x1p-7;
    default: return 0;
  }
}

Digest digest_of(const void* data, uint64_t count, ElementType type) {
  Digest d;
  const auto* bytes = static_cast<const unsigned char*>(data);
  const size_t size = element_bytes(type);
  for (uint64_t i = 0; i < count * size; ++i) {
    d.fnv1a ^= bytes[i];
    d.fnv1a *= 0x100000001b3ull;
  }
  d.count = count;
  double sum_squares = 0;
  bool any = false;
  for (uint64_t i = 0; i < count; ++i) {
    const double x = element(bytes + i * size, type);
    if (std::isnan(x)) {
      ++d.nan;
      continue;
    }
    if (std::isinf(x)) {
      ++d.inf;
      continue;
    }
    d.sum += x;
    d.l1 += std::fabs(x);
    sum_squares += x * x;
    d.min = any ? std::min(d.min, x) : x;
    d.max = any ? std::max(d.max, x) : x;
    any = true;
    const uint64_t signs = mix(i);
    for (size_t k = 0; k < kProjections; ++k) d.projections[k] += (signs >> k & 1) ? x : -x;
  }
  d.l2 = std::sqrt(sum_squares);
  return d;
}

}  // namespace brickprof
