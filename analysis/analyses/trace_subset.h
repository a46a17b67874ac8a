// The part of a trace under scopes of one name ("decode token"): those
// scopes, everything nested in them and the GPU work they launched, so every
// view can describe the steady state alone (no prefill, no warm-up). Like
// Nsight's NVTX range filter, by name rather than by time. Also one rank of
// a merged trace, so every view can describe that rank alone.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

struct Subset {
  Trace trace;       // the kept nodes (renumbered), their details and edges
  size_t roots = 0;  // nodes named `name` that are not inside another one
};

// Keeps every scope (layer, brick, scope: not a kernel, copy or sync)
// named `name`, exactly as written (case matters: two scopes may differ in
// case alone), and its descendants (by parent); edges whose two ends are
// kept; the memory events made inside them (so --memory counts what the
// part allocated; a free there of memory allocated outside is unpaired);
// the process, devices, threads, PTX modules and diagnostics as they
// are. The kept nodes keep their ids in `trace` (Trace::file_ids). roots
// == 0 when no scope has that name.
Subset subtrees_named(const Trace& trace, std::string_view name);

// Why subtrees_named kept nothing, as one line's text: "no scope named
// 'X' (--under)", what it names if not a scope, and the closest scope
// names the trace has.
std::string no_scope_named(const Trace& trace, std::string_view name);

// One input process of a merged trace (`brickprof merge`; trace.sources[i]):
// the nodes on its threads (GPU work by the thread that launched it), its
// threads, its memory events (by thread), and edges whose two ends are kept; the process is the source's
// as it recorded it, so the subset reads like that rank's own trace (its
// devices and threads keep the merged ids and "rank R: " names). roots
// counts the kept nodes whose parent is not kept; 0 when nothing is kept
// or `source` is out of range.
Subset source_subset(const Trace& trace, size_t source);

}  // namespace brickprof
