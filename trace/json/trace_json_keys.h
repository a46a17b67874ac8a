// The keys of nodes[] and edges[] elements, recognised straight from
// simdjson's raw key text: no copy and no scan for the key's length, which
// the reader would otherwise pay for every field of millions of nodes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace brickprof {

enum class TraceKey : uint8_t {
  kUnknown,
  // nodes[]
  kId,
  kKind,
  kName,
  kParent,
  kThread,
  kStartNs,
  kEndNs,
  kIndex,
  kBrickId,
  kCategory,
  kElements,
  kFlops,
  kBytesMoved,
  kDevice,
  kContext,
  kStream,
  kCorrelation,
  kApiStartNs,
  kApiEndNs,
  kGrid,
  kBlock,
  kSmem,
  kRegisters,
  kPtxHash,
  kGraphNode,
  kGraphId,
  kBytes,
  kDirection,
  kSrcKind,
  kDstKind,
  kSrcAddr,
  kDstAddr,
  kSync,
  kEvent,
  kMpi,
  kPythonStack,
  // edges[]
  kSrc,
  kDst,
  kType,
};

inline constexpr std::array<std::string_view, 40> kTraceKeyNames = {
    "",         "id",       "kind",      "name",        "parent",       "thread",     "start_ns",
    "end_ns",   "index",    "brick_id",  "category",    "elements",     "flops",      "bytes_moved",
    "device",   "context",  "stream",    "correlation", "api_start_ns", "api_end_ns", "grid",
    "block",    "smem",     "registers", "ptx_hash",    "graph_node",   "graph_id",   "bytes",
    "direction", "src_kind", "dst_kind", "src_addr",    "dst_addr",     "sync",       "event",
    "mpi",      "python_stack", "src",   "dst",      "type"};
static_assert(kTraceKeyNames.size() == static_cast<size_t>(TraceKey::kType) + 1);

// "" for kUnknown.
inline std::string_view key_name(TraceKey key) { return kTraceKeyNames[static_cast<size_t>(key)]; }

TraceKey key_from_text(std::string_view key);

namespace detail {
// The key is exactly `name`: its bytes, then the closing quote. The sizes
// are constants, so the compiler turns this into a few integer compares.
template <size_t N>
inline bool is(const char* raw, const char (&name)[N]) {
  return std::memcmp(raw, name, N - 1) == 0 && raw[N - 1] == '"';
}

}  // namespace detail

// `raw` points just past a key's opening quote inside a padded simdjson
// buffer (so reading a dozen bytes on is safe). A key spelled with escapes
// is kUnknown here: compare it unescaped with key_from_text. Inline: it runs
// for every field.
inline TraceKey key_from_raw(const char* raw) {
  using detail::is;
  switch (raw[0]) {
    case 'a':
      if (is(raw, "api_start_ns")) return TraceKey::kApiStartNs;
      if (is(raw, "api_end_ns")) return TraceKey::kApiEndNs;
      break;
    case 'b':
      if (is(raw, "brick_id")) return TraceKey::kBrickId;
      if (is(raw, "block")) return TraceKey::kBlock;
      if (is(raw, "bytes")) return TraceKey::kBytes;
      if (is(raw, "bytes_moved")) return TraceKey::kBytesMoved;
      break;
    case 'c':
      if (is(raw, "correlation")) return TraceKey::kCorrelation;
      if (is(raw, "context")) return TraceKey::kContext;
      if (is(raw, "category")) return TraceKey::kCategory;
      break;
    case 'd':
      if (is(raw, "device")) return TraceKey::kDevice;
      if (is(raw, "dst")) return TraceKey::kDst;
      if (is(raw, "direction")) return TraceKey::kDirection;
      if (is(raw, "dst_kind")) return TraceKey::kDstKind;
      if (is(raw, "dst_addr")) return TraceKey::kDstAddr;
      break;
    case 'e':
      if (is(raw, "end_ns")) return TraceKey::kEndNs;
      if (is(raw, "elements")) return TraceKey::kElements;
      if (is(raw, "event")) return TraceKey::kEvent;
      break;
    case 'f':
      if (is(raw, "flops")) return TraceKey::kFlops;
      break;
    case 'g':
      if (is(raw, "grid")) return TraceKey::kGrid;
      if (is(raw, "graph_node")) return TraceKey::kGraphNode;
      if (is(raw, "graph_id")) return TraceKey::kGraphId;
      break;
    case 'i':
      if (is(raw, "id")) return TraceKey::kId;
      if (is(raw, "index")) return TraceKey::kIndex;
      break;
    case 'k':
      if (is(raw, "kind")) return TraceKey::kKind;
      break;
    case 'm':
      if (is(raw, "mpi")) return TraceKey::kMpi;
      break;
    case 'n':
      if (is(raw, "name")) return TraceKey::kName;
      break;
    case 'p':
      if (is(raw, "parent")) return TraceKey::kParent;
      if (is(raw, "ptx_hash")) return TraceKey::kPtxHash;
      if (is(raw, "python_stack")) return TraceKey::kPythonStack;
      break;
    case 'r':
      if (is(raw, "registers")) return TraceKey::kRegisters;
      break;
    case 's':
      if (is(raw, "start_ns")) return TraceKey::kStartNs;
      if (is(raw, "stream")) return TraceKey::kStream;
      if (is(raw, "src")) return TraceKey::kSrc;
      if (is(raw, "smem")) return TraceKey::kSmem;
      if (is(raw, "src_kind")) return TraceKey::kSrcKind;
      if (is(raw, "src_addr")) return TraceKey::kSrcAddr;
      if (is(raw, "sync")) return TraceKey::kSync;
      break;
    case 't':
      if (is(raw, "thread")) return TraceKey::kThread;
      if (is(raw, "type")) return TraceKey::kType;
      break;
    default:
      break;
  }
  return TraceKey::kUnknown;
}

}  // namespace brickprof
