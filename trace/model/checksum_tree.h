// The digest's tree (checksum.h): the one definition the host
// (checksum.cpp) and checksum mode's reduction kernels
// (agent/cupti/digest_reduce.cu) both compute, bit for bit.
//
// - The buffer is cut into chunks of kChunkBytes (the last may be short;
//   every element size divides kChunkBytes). A chunk's record: FNV-1a 64 of
//   its bytes, and its finite elements' partials summed in order in double
//   (sum, L1, sum of squares, min, max, the projections), with its NaN and
//   Inf counted.
// - While more than one record remains, each run of kGroup consecutive
//   records (the last run may be shorter) folds into one, in order: FNV-1a
//   64 over the members' hashes as 8 little-endian bytes each, partials
//   added in member order from zero, min and max folded. So a buffer of at
//   most kChunkBytes keeps the plain FNV-1a of its bytes.
// - No fused multiply-add: every product and sum is rounded on its own
//   (`mul`, `add`: __dmul_rn and __dadd_rn on the GPU; the host files that
//   include this are built with -ffp-contract=off).
//
// Plain C++ that nvcc also compiles for the device: no library calls, no
// exceptions; element bytes are read one at a time (any alignment).
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define BRICKPROF_TREE_FN __host__ __device__ __forceinline__
#else
#define BRICKPROF_TREE_FN inline
#endif

namespace brickprof {

// The element types a digest reads; anything else is digested as bytes.
enum class ElementType : uint8_t { kBytes, kF32, kF64, kF16, kBf16, kI32, kI64, kI8, kU8 };

namespace digest_tree {

inline constexpr uint64_t kChunkBytes = 4096;
inline constexpr uint64_t kGroup = 64;
inline constexpr int kProjections = 16;
inline constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;  // FNV-1a 64 of no bytes
inline constexpr uint64_t kFnvPrime = 0x100000001b3ull;

// One node of the tree (a chunk or a group). The GPU writes these, so the
// layout is fixed: 8-byte fields only.
struct Record {
  uint64_t fnv1a;
  uint64_t nan;
  uint64_t inf;
  double sum;
  double l1;
  double squares;
  double min;  // +inf while no finite element
  double max;  // -inf while no finite element
  double projections[kProjections];
};
static_assert(sizeof(Record) == 8 * (8 + kProjections), "Record is shared with the GPU");

BRICKPROF_TREE_FN double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

BRICKPROF_TREE_FN double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

BRICKPROF_TREE_FN double from_bits(uint64_t bits) {
  union {
    uint64_t u;
    double d;
  } v{bits};
  return v.d;
}

BRICKPROF_TREE_FN float float_from_bits(uint32_t bits) {
  union {
    uint32_t u;
    float f;
  } v{bits};
  return v.f;
}

BRICKPROF_TREE_FN void start(Record* r) {
  r->fnv1a = kFnvBasis;
  r->nan = r->inf = 0;
  r->sum = r->l1 = r->squares = 0;
  r->min = from_bits(0x7ff0000000000000ull);   // +inf
  r->max = from_bits(0xfff0000000000000ull);   // -inf
  for (int k = 0; k < kProjections; ++k) r->projections[k] = 0;
}

BRICKPROF_TREE_FN uint64_t fnv1a_byte(uint64_t h, uint8_t byte) { return (h ^ byte) * kFnvPrime; }

// splitmix64 of the element's index in the buffer: its bits are the
// projections' signs.
BRICKPROF_TREE_FN uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// `n` little-endian bytes at p.
BRICKPROF_TREE_FN uint64_t load_le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

BRICKPROF_TREE_FN float half_to_float(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float value = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign != 0 ? -value : value;
  }
  return float_from_bits(sign | ((exponent == 31 ? 255u : exponent + 112u) << 23) | (mantissa << 13));
}

// Bytes per element (1 for kBytes).
BRICKPROF_TREE_FN uint64_t size_of(ElementType type) {
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

// The element whose `size_of(kType)` little-endian bytes are `v`, exactly
// (an i64 beyond 2^53 rounds to nearest).
template <ElementType kType>
BRICKPROF_TREE_FN double element(uint64_t v) {
  switch (kType) {
    case ElementType::kF32: return float_from_bits(static_cast<uint32_t>(v));
    case ElementType::kF64: return from_bits(v);
    case ElementType::kF16: return half_to_float(static_cast<uint32_t>(v));
    case ElementType::kBf16: return float_from_bits(static_cast<uint32_t>(v) << 16);
    case ElementType::kI32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case ElementType::kI64: return static_cast<double>(static_cast<int64_t>(v));
    case ElementType::kI8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    default: return static_cast<double>(v);  // kU8, kBytes
  }
}

BRICKPROF_TREE_FN void add_element(Record* r, double x, uint64_t index) {
  if (x != x) {
    ++r->nan;
    return;
  }
  if (x - x != 0) {  // inf - inf is NaN; a finite x - x is 0
    ++r->inf;
    return;
  }
  r->sum = add(r->sum, x);
  r->l1 = add(r->l1, x < 0 ? -x : x);
  r->squares = add(r->squares, mul(x, x));
  if (x < r->min) r->min = x;
  if (x > r->max) r->max = x;
  const uint64_t signs = mix(index);
  for (int k = 0; k < kProjections; ++k)
    r->projections[k] = add(r->projections[k], (signs >> k & 1) != 0 ? x : -x);
}

// The record of the chunk of `bytes` bytes at p whose first element is the
// buffer's element `first`.
// Each byte is read once, for the hash and the element it belongs to.
template <ElementType kType>
BRICKPROF_TREE_FN void chunk_record(const unsigned char* p, uint64_t bytes, uint64_t first,
                                    Record* r) {
  start(r);
  const int size = static_cast<int>(size_of(kType));
  uint64_t h = kFnvBasis;
  for (uint64_t i = 0; i < bytes / size; ++i) {
    const uint64_t v = load_le(p + i * size, size);
    for (int b = 0; b < size; ++b) h = fnv1a_byte(h, static_cast<uint8_t>(v >> (8 * b)));
    add_element(r, element<kType>(v), first + i);
  }
  r->fnv1a = h;
}

BRICKPROF_TREE_FN void chunk_record(ElementType type, const unsigned char* p, uint64_t bytes,
                                    uint64_t first, Record* r) {
  switch (type) {
    case ElementType::kF32: return chunk_record<ElementType::kF32>(p, bytes, first, r);
    case ElementType::kF64: return chunk_record<ElementType::kF64>(p, bytes, first, r);
    case ElementType::kF16: return chunk_record<ElementType::kF16>(p, bytes, first, r);
    case ElementType::kBf16: return chunk_record<ElementType::kBf16>(p, bytes, first, r);
    case ElementType::kI32: return chunk_record<ElementType::kI32>(p, bytes, first, r);
    case ElementType::kI64: return chunk_record<ElementType::kI64>(p, bytes, first, r);
    case ElementType::kI8: return chunk_record<ElementType::kI8>(p, bytes, first, r);
    case ElementType::kU8: return chunk_record<ElementType::kU8>(p, bytes, first, r);
    default: return chunk_record<ElementType::kBytes>(p, bytes, first, r);
  }
}

// Folds the next member of a group into `group` (started with start()).
BRICKPROF_TREE_FN void fold(Record* group, const Record& member) {
  uint64_t h = group->fnv1a;
  for (int i = 0; i < 8; ++i) h = fnv1a_byte(h, static_cast<uint8_t>(member.fnv1a >> (8 * i)));
  group->fnv1a = h;
  group->nan += member.nan;
  group->inf += member.inf;
  group->sum = add(group->sum, member.sum);
  group->l1 = add(group->l1, member.l1);
  group->squares = add(group->squares, member.squares);
  if (member.min < group->min) group->min = member.min;
  if (member.max > group->max) group->max = member.max;
  for (int k = 0; k < kProjections; ++k)
    group->projections[k] = add(group->projections[k], member.projections[k]);
}

// Records of a buffer of `bytes` bytes (a whole number of elements); at
// least one (the empty buffer's).
BRICKPROF_TREE_FN uint64_t chunk_count(uint64_t bytes) {
  return bytes == 0 ? 1 : (bytes + kChunkBytes - 1) / kChunkBytes;
}

// Records of the level above one of `n` records.
BRICKPROF_TREE_FN uint64_t group_count(uint64_t n) { return (n + kGroup - 1) / kGroup; }

}  // namespace digest_tree
}  // namespace brickprof
