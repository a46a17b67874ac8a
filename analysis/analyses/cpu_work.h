// What a node adds to the timeline of its rank, the rule both the
// cross-rank views (rank_work.h) and the Chrome trace's "CPU work" track
// follow, whoever produces the trace (a held one, or the agent's exit
// write, which knows a node's children only by reading the spill again).
// As Holistic Trace Analysis measures a rank: with GPU operations, on its
// GPUs; without, on its CPU: the leaf scopes and bricks (no CPU node
// inside) are compute, the outermost Communication scopes (an "AllReduce"
// brick, or an MPI call outside one) communication, and everything inside a
// communication scope part of it, never compute.
#pragma once

#include <cstdint>

#include "analysis/model/trace.h"

namespace brickprof {

enum class WorkClass : uint8_t { kNone, kCompute, kCommunication, kMemory };

// A GPU operation: it puts its rank on a GPU timeline.
inline bool is_device_op(NodeKind k) {
  return k == NodeKind::kKernel || k == NodeKind::kTransfer || k == NodeKind::kMemset;
}

// A scope of communication (it and all it holds are communication).
inline bool is_communication_scope(const Node& n) {
  return is_cpu_kind(n.kind) && n.category == Category::kCommunication;
}

// A CPU node (not on a range lane) of a rank measured on its CPU: `inside`,
// it or an ancestor is a communication scope; `parent_inside`, its parent
// is inside one; `has_cpu_child`, a CPU node's parent is this one.
inline WorkClass cpu_work_of(bool inside, bool parent_inside, bool has_cpu_child) {
  if (inside && !parent_inside) return WorkClass::kCommunication;  // the outermost
  if (!inside && !has_cpu_child) return WorkClass::kCompute;
  return WorkClass::kNone;
}

}  // namespace brickprof
