// The MPI part of a trace (see contribute.h).
#include "agent/mpi/contribute.h"

#include "agent/mpi/calls.h"

namespace brickprof::agent::mpi {

void contribute(Trace& trace) {
  Snapshot s = snapshot();
  if (!s.initialized && s.calls.empty()) return;
  for (uint32_t id = 0; id < trace.nodes.size(); ++id) {
    Node& n = trace.nodes[id];
    if (n.kind != NodeKind::kScope || n.category != Category::kCommunication ||
        (n.elements & kCallTag) == 0)
      continue;
    const uint64_t slot = n.elements & ~kCallTag;
    n.elements = 0;
    if (slot >= s.calls.size()) continue;
    const CallRecord& r = s.calls[slot];
    n.elements = r.elements;
    if (r.comm >= s.communicators.size()) continue;  // the call failed: no arguments to trust
    trace.comm_calls.push_back(
        CommCall{id, r.op, r.comm, r.peer, r.tag, r.bytes, r.recv_bytes, r.seq});
  }
  trace.communicators = std::move(s.communicators);
  ProcessInfo& p = trace.process;
  if (s.initialized && s.world_rank >= 0) {  // MPI's word over the launcher's variables
    p.rank = s.world_rank;
    p.world_size = s.world_size;
    if (p.launcher.empty()) p.launcher = "mpi";
  }
  p.clock_sync = s.clock_sync;
  if (s.dropped_calls)
    trace.diagnostics.warnings.push_back(
        std::to_string(s.dropped_calls) +
        " MPI calls were not recorded: the call log (an eighth of BRICKPROF_BUFFER_MB) is full");
}

}  // namespace brickprof::agent::mpi
