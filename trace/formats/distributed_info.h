// Kineto's "distributedInfo" for a rank's Chrome trace ({"backend", "rank",
// "world_size"}), which Holistic Trace Analysis reads to tell the ranks'
// files apart. (The "CPU work" track that gives HTA a device timeline for a
// rank that computes on its CPU is ChromeSink::cpu_work's.)
#pragma once

#include <optional>
#include <string>

#include "trace/model/trace.h"

namespace brickprof {

// The object's JSON text, spaced as Kineto writes it (HTA finds the rank
// with a pattern that wants a space after the colon); nothing for a trace
// that is not one rank of a job (no rank, or a merged trace). Its nodes are
// not read: `nccl_kernels` says whether NCCL's kernels ran.
std::optional<std::string> distributed_info_json(const Trace& trace, bool nccl_kernels);
// Whether any kernel of the trace is a communication kernel (NCCL's).
bool ran_communication_kernels(const Trace& trace);

// Whether the trace is one rank of a job (not a merged trace): what
// distributedInfo, the CPU work track and the step annotations are for.
bool is_one_rank(const Trace& trace);

}  // namespace brickprof
