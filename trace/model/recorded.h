// What a trace recorded, said the same way everywhere: a run that recorded
// nothing (every view, the agent's tree file, `brickprof run` at exit), a
// run without GPU work (one plain line instead of the CUPTI status), and
// the wall time the scopes did not cover.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/model/trace.h"

namespace brickprof {

// brickprof records what the program marks and the GPU work it runs; it
// does not sample. A trace without a node is a program that did neither.
inline constexpr std::string_view kNothingRecorded =
    "Nothing recorded: brickprof records scopes (the scope API: <brickprof/brickprof.h>, "
    "`import brickprof`), NVTX ranges and CUDA work, and this program ran none of them "
    "(brickprof does not sample).";

inline bool recorded_nothing(const Trace& trace) { return trace.nodes.empty(); }

// The line every view and `brickprof run` say for such a trace: kNothingRecorded,
// or, when a capture setting chose what to record (BRICKPROF_CAPTURE other
// than "all"; `capture` as the trace's diagnostics or the variable say it),
// that no capture window held anything: the program may have run scopes.
std::string nothing_recorded_line(std::string_view capture);
inline std::string nothing_recorded_line(const Trace& trace) {
  return nothing_recorded_line(trace.diagnostics.capture);
}

// The line an agent adds to `brickprof run`'s manifest (BRICKPROF_RUN_MANIFEST)
// after the files of each trace: whether it holds anything. Run says
// kNothingRecorded at exit when no trace of the run did (a shell that runs
// programs that record writes an empty trace of its own).
inline constexpr std::string_view kManifestNothingRecorded = "#nothing-recorded";
inline constexpr std::string_view kManifestRecorded = "#recorded";

// Any kernel, copy, memset or sync.
bool has_gpu_work(const Trace& trace);

// "" when the trace has GPU work; else one line that says why there is
// none, from the agent's CUPTI status, as "GPU: <what>; <why>": "GPU: none;
// no CUDA driver on this machine, so CPU scopes only", "GPU: off;
// BRICKPROF_GPU=off", "GPU: not recorded; forked child", ...
std::string no_gpu_line(const Trace& trace);

// The wall time the trace covers: the sum of its capture windows when it
// has them (nothing was recorded between them), else the process's start
// to end; 0 when it has no process times (a hand-made trace).
int64_t recorded_wall_ns(const Trace& trace);

// The length of a union of intervals given in order of their starts: the
// wall time inside some outermost scope, whatever thread it was on.
class SpanUnion {
 public:
  void add(int64_t start_ns, int64_t end_ns);
  int64_t total_ns() const { return done_ns_ + (end_ - start_); }

 private:
  int64_t done_ns_ = 0;
  int64_t start_ = 0, end_ = 0;  // the interval still growing
};

// recorded_wall_ns less the union of the outermost CPU scopes: the run's
// time outside every scope; -1 when the trace has no process times or
// recorded nothing. (The aggregate tree computes the same as it is built:
// aggregate_tree.h's time_outside_scopes.)
int64_t time_outside_scopes(const Trace& trace);

}  // namespace brickprof
