// Names of the memory model's enums, the account of each source, dtype sizes.
#include "trace/model/memory.h"

#include <array>
#include <utility>

namespace brickprof {
namespace {

constexpr std::array<std::string_view, 5> kOps = {"alloc", "free", "map", "unmap", "trim"};
constexpr std::array<std::string_view, 10> kSources = {
    "device", "async",   "physical",     "mapping", "managed",
    "pinned", "registered", "program", "pool_reserve", "graph"};
constexpr std::array<std::string_view, 6> kAccounts = {"device",  "managed",      "host_pinned",
                                                       "program", "pool_reserve", "none"};

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

std::string_view to_string(MemoryOp op) { return kOps[static_cast<size_t>(op)]; }
std::string_view to_string(MemorySource source) {
  return kSources[static_cast<size_t>(source)];
}
std::string_view to_string(MemoryAccount account) {
  return kAccounts[static_cast<size_t>(account)];
}
bool parse(std::string_view text, MemoryOp* out) { return parse_name(kOps, text, out); }
bool parse(std::string_view text, MemorySource* out) { return parse_name(kSources, text, out); }

MemoryAccount account_of(MemorySource source) {
  switch (source) {
    case MemorySource::kDevice:
    case MemorySource::kAsync:
    case MemorySource::kPhysical:
    case MemorySource::kGraph:
      return MemoryAccount::kDevice;
    case MemorySource::kPoolReserve:
      return MemoryAccount::kPoolReserve;
    case MemorySource::kManaged:
      return MemoryAccount::kManaged;
    case MemorySource::kPinned:
    case MemorySource::kRegistered:
      return MemoryAccount::kHostPinned;
    case MemorySource::kProgram:
      return MemoryAccount::kProgram;
    case MemorySource::kMapping:
      break;
  }
  return MemoryAccount::kNone;
}

uint64_t NodeShape::output_elements() const {
  if (output.empty()) return 0;
  uint64_t n = 1;
  for (int64_t d : output) n *= d > 0 ? static_cast<uint64_t>(d) : 0;
  return n;
}

uint64_t dtype_bytes(std::string_view dtype) {
  static constexpr std::pair<std::string_view, uint64_t> kSizes[] = {
      {"f64", 8}, {"f32", 4}, {"tf32", 4}, {"f16", 2}, {"bf16", 2}, {"f8", 1},  {"fp8", 1},
      {"i64", 8}, {"i32", 4}, {"i16", 2},  {"i8", 1},  {"u8", 1},   {"u32", 4}, {"bool", 1},
      {"q8_0", 0}, {"q4_k", 0}};
  for (const auto& [name, bytes] : kSizes)
    if (name == dtype) return bytes;
  return 0;
}

}  // namespace brickprof
