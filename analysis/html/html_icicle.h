// The HTML page's flame graph (tools/html/README.md, `icicle`): the scope
// tree with the children of an entry that share kind and name folded into
// one (kernels whatever their launch configuration, copies whatever their
// direction: the aggregate tree keeps those apart because its text lines
// show them), GPU work under the scope that launched it, and only the
// heaviest entries when there are too many.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/html/html_common.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

struct IcicleEntry {
  enum class Kind : uint8_t { kRoot, kThread, kNode };
  Kind kind = Kind::kRoot;
  NodeKind node_kind = NodeKind::kScope;  // kNode
  uint32_t parent = kNoNode;              // an earlier entry; kNoNode for the root
  uint32_t name = 0;                      // kNode: a trace StringId; kThread: the tid
  uint64_t count = 0;                     // nodes folded into it
  int64_t total = 0;  // host: summed durations; GPU: GPU time; root, thread: their host children's
  int64_t self = 0;   // total less the host children's total (GPU: total)
  int64_t gpu = 0;    // GPU time of the operations at or under it

  bool is_gpu() const { return kind == Kind::kNode && on_stream(node_kind); }
};

struct HtmlIcicle {
  std::vector<IcicleEntry> entries;  // entry 0 the root, parents before children
  size_t of = 0;                     // entries before only the heaviest were kept
  bool sampled() const { return entries.size() < of; }
};

// At most `max_entries` (and the ancestors of the heaviest that tie). Linear
// in the trace, and n log n in the entries only when there are too many.
HtmlIcicle build_html_icicle(const Trace& trace, size_t max_entries);

void write_html_icicle(const Trace& trace, const HtmlIcicle& icicle, JsonWriter& w);

}  // namespace brickprof
