// Chrome trace event JSON (<prefix>.trace.json), for Perfetto UI and
// chrome://tracing: CPU scopes as nested slices per thread, GPU work on one
// process track per device with a thread track per stream, and flow arrows
// from each launching scope to its kernel; each memory account's live bytes
// as a counter track on its device's process, the program's counters and
// tokens so far on their thread's process. A rank of a job also carries
// Kineto's distributedInfo and, computing on its CPU, a CPU work track
// (distributed_info.h), for Holistic Trace Analysis.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <set>
#include <string_view>
#include <utility>

#include "trace/model/trace.h"
#include "trace/formats/source_processes.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

// GPU device d is shown as pid kGpuPidBase + d: above Linux's largest pid
// (2^22), so it never collides with the CPU process.
inline constexpr int64_t kGpuPidBase = int64_t{1} << 22;
// A rank's CPU work track (distributed_info.h): above the source pids.
inline constexpr int64_t kCpuWorkPid = int64_t{1} << 24;
// The capture windows' track: above any thread id, below the range lanes.
inline constexpr int64_t kCaptureTid = int64_t{kRangeLaneBase} - 1;

// The Chrome trace as a sink (trace_sink.h): metadata at begin, then each
// node as the producer streams it in id order, a rank's CPU work track and
// step annotations (distributed_info.h), and the closing fields.
class ChromeSink : public TraceSink {
 public:
  explicit ChromeSink(std::ostream& out);
  ~ChromeSink() override;
  ChromeSink(const ChromeSink&) = delete;
  ChromeSink& operator=(const ChromeSink&) = delete;

  unsigned needs() const override { return kNodes | kLaunchers | kCpuWork; }
  // The metadata (a rank's distributedInfo first, its backend NCCL when
  // NCCL's kernels ran): names of the processes, of every CPU thread (the
  // head's and the header's), and of every (device, stream).
  void begin(const TraceHead& head) override;
  // A node: its parent, for GPU work, gives the launch flow.
  void node(const NodeEvent& e) override;
  // The rank's "CPU work (rank R)" process, and its compute.
  void cpu_work_track() override;
  void cpu_work(const NodeEvent& e) override;
  void step(const NodeEvent& e, size_t n) override;
  void end(const TraceStats*) override;

 private:
  struct State;
  std::ostream& out_;
  std::unique_ptr<State> s_;
};

}  // namespace brickprof
