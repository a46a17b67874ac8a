// Digests of outputs (checksum.h): the tree of checksum_tree.h on the host.
// Built with -ffp-contract=off (trace/meson.build): no product may fuse
// into a sum, or the GPU's digests would differ.
#include "trace/model/checksum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

}  // namespace

std::string_view to_string(ElementType type) { return kTypes[static_cast<size_t>(type)]; }
bool parse(std::string_view text, ElementType* out) { return parse_name(kTypes, text, out); }
std::string_view to_string(ChecksumSource source) { return kSources[static_cast<size_t>(source)]; }
bool parse(std::string_view text, ChecksumSource* out) { return parse_name(kSources, text, out); }

size_t element_bytes(ElementType type) { return digest_tree::size_of(type); }

double element_epsilon(ElementType type) {
  switch (type) {
    case ElementType::kF32: return std::numeric_limits<float>::epsilon();
    case ElementType::kF64: return std::numeric_limits<double>::epsilon();
    case ElementType::kF16: return 0x1p-10;
    case ElementType::kBf16: return 0x1p-7;
    default: return 0;
  }
}

Digest digest_of_root(const digest_tree::Record& root, uint64_t count) {
  Digest d;
  d.fnv1a = root.fnv1a;
  d.count = count;
  d.sum = root.sum;
  d.l1 = root.l1;
  d.l2 = std::sqrt(root.squares);
  if (root.min <= root.max) {  // some element was finite
    d.min = root.min;
    d.max = root.max;
  }
  d.nan = root.nan;
  d.inf = root.inf;
  for (size_t k = 0; k < kProjections; ++k) d.projections[k] = root.projections[k];
  return d;
}

Digest digest_of(const void* data, uint64_t count, ElementType type) {
  using digest_tree::Record;
  const auto* bytes = static_cast<const unsigned char*>(data);
  const uint64_t size = element_bytes(type), total = count * size;
  const uint64_t chunks = digest_tree::chunk_count(total);
  Record chunk;
  if (chunks == 1) {
    digest_tree::chunk_record(type, bytes, total, 0, &chunk);
    return digest_of_root(chunk, count);
  }
  // The first level is folded as its chunks are read: one record per group.
  std::vector<Record> level(digest_tree::group_count(chunks));
  for (uint64_t g = 0; g < level.size(); ++g) {
    digest_tree::start(&level[g]);
    const uint64_t last = std::min(chunks, (g + 1) * digest_tree::kGroup);
    for (uint64_t c = g * digest_tree::kGroup; c < last; ++c) {
      const uint64_t at = c * digest_tree::kChunkBytes;
      digest_tree::chunk_record(type, bytes + at, std::min(digest_tree::kChunkBytes, total - at),
                                at / size, &chunk);
      digest_tree::fold(&level[g], chunk);
    }
  }
  while (level.size() > 1) {  // in place: group g is written after its members are read
    const uint64_t groups = digest_tree::group_count(level.size());
    for (uint64_t g = 0; g < groups; ++g) {
      Record group;
      digest_tree::start(&group);
      const uint64_t last = std::min<uint64_t>(level.size(), (g + 1) * digest_tree::kGroup);
      for (uint64_t m = g * digest_tree::kGroup; m < last; ++m) digest_tree::fold(&group, level[m]);
      level[g] = group;
    }
    level.resize(groups);
  }
  return digest_of_root(level[0], count);
}

}  // namespace brickprof
