// Chrome trace event JSON (<prefix>.trace.json), for Perfetto UI and
// chrome://tracing: CPU scopes as nested slices per thread, GPU work on one
// process track per device with a thread track per stream, and flow arrows
// from each launching scope to its kernel. A rank of a job also carries
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

namespace brickprof {

// GPU device d is shown as pid kGpuPidBase + d: above Linux's largest pid
// (2^22), so it never collides with the CPU process.
inline constexpr int64_t kGpuPidBase = int64_t{1} << 22;
// Merged traces whose sources share a pid: the later ones are shown as
// kSourcePidBase + their index, above both real and GPU pids.
inline constexpr int64_t kSourcePidBase = int64_t{1} << 23;
// A rank's CPU work track (distributed_info.h): above the source pids.
inline constexpr int64_t kCpuWorkPid = int64_t{1} << 24;
// The capture windows' track: above any thread id, below the range lanes.
inline constexpr int64_t kCaptureTid = int64_t{kRangeLaneBase} - 1;

void write_chrome_trace(const Trace& trace, std::ostream& out);

// write_chrome_trace in pieces, for writers that stream nodes in id order
// instead of holding them (the agent's exit write).
class ChromeTraceWriter {
 public:
  // `header`: process, sources, threads, devices, capture windows (its
  // nodes are not read; it must outlive the writer).
  ChromeTraceWriter(const Trace& header, std::ostream& out);
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // The metadata (a rank's distributedInfo first, its backend NCCL when
  // `nccl_kernels` ran): names of the processes, of every CPU thread in
  // `threads` (and the header's), and of every (device, stream) in `streams`.
  void begin(const std::set<uint32_t>& threads,
             const std::set<std::pair<uint32_t, uint32_t>>& streams, bool nccl_kernels);
  // One node, in id order: `name` as the trace names it; `parent` is the
  // node's parent (for the launch flow of GPU work), null for a root;
  // `call` the MPI call of its scope, if any.
  void node(uint32_t id, const Node& node, std::string_view name, const GpuDetail* detail,
            const Node* parent, const CommCall* call = nullptr);
  // With the `whole` trace (not while streaming: the agent's exit write),
  // a rank's CPU work track and step annotations (distributed_info.h) end
  // the events.
  void end(const Trace* whole = nullptr);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace brickprof
