// What a rank measured on its CPU (one with no kernel, copy or memset)
// spent its time on: its leaf scopes and bricks (no CPU node inside) are
// compute; its outermost Communication scopes (an "AllReduce" brick, an MPI
// call outside one) are communication, and everything inside one is part of
// it, never compute. Range lanes (NVTX ranges that are not nested scopes)
// are neither. One rule for the cross-rank views (rank_work.h) and the
// Chrome file's CPU work track, whoever writes it.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/model/trace.h"

namespace brickprof {

enum class CpuWork : uint8_t { kNone, kCompute, kCommunication };

// The rule for one CPU node, from what a walk knows of it: whether it or an
// ancestor is a Communication scope, whether its parent is, and whether it
// has a CPU child.
inline CpuWork cpu_work_of(bool inside_communication, bool parent_inside_communication,
                           bool has_cpu_child) {
  if (inside_communication) {
    return parent_inside_communication ? CpuWork::kNone : CpuWork::kCommunication;
  }
  return has_cpu_child ? CpuWork::kNone : CpuWork::kCompute;
}

// Per node: whether it or an ancestor is a CPU node of category
// Communication. Linear: each parent chain is walked once.
std::vector<bool> inside_communication(const Trace& trace);
// Per node: whether it has a CPU child.
std::vector<bool> has_cpu_child(const Trace& trace);

// Whether the trace has a kernel, copy or memset: such a rank is measured on
// its GPUs, not by this rule.
bool is_device_op(NodeKind kind);

// The rule applied to every node of a trace taken as one rank measured on
// its CPU (kNone for GPU nodes and range lanes).
std::vector<CpuWork> classify_cpu_work(const Trace& trace);

}  // namespace brickprof
