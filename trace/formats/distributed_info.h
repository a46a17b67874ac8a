// Kineto's "distributedInfo" for a rank's Chrome trace ({"backend", "rank",
// "world_size"}), which Holistic Trace Analysis reads to tell the ranks'
// files apart, and the "CPU work" track that gives HTA a device timeline
// for a rank that computes on its CPU.
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

class JsonWriter;
// For one rank without GPU work: a process "CPU work (rank R)" at
// `pid` whose one track holds the rank's compute (trace/derive/cpu_work.h) as Kineto
// kernel events on stream 0, in whole microseconds as Kineto writes device
// events, so HTA's kernel-based temporal breakdown measures the CPU. Its
// communication is left out: HTA knows communication only by NCCL kernel
// names, and counts the rest as compute. Nothing for other traces.
void write_cpu_work_track(const Trace& trace, int64_t pid, JsonWriter& w);

// For one rank cut to its steps (report --under NAME): each outermost scope
// named NAME again as Kineto's step annotation "ProfilerStep#N" (N from 0,
// in time order) on its thread of process `pid`, so HTA tells the
// iterations apart.
void write_profiler_steps(const Trace& trace, int64_t pid, JsonWriter& w);

}  // namespace brickprof
