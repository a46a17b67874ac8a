// The MPI part of a trace (see contribute.h).
#include "agent/mpi/contribute.h"

#include <optional>

#include "agent/mpi/calls.h"

namespace brickprof::agent::mpi {
namespace {

// Taken once per write, before the nodes: calls logged after it (a thread
// still in MPI while the process exits) have scopes without figures.
std::optional<Snapshot>& written_snapshot() {
  static std::optional<Snapshot> snapshot;
  return snapshot;
}

}  // namespace

void contribute_header(Trace& header) {
  Snapshot s = snapshot();
  for (const std::string& note : s.notes) header.diagnostics.warnings.push_back(note);
  if (!s.initialized && s.calls.empty()) return;
  header.communicators = s.communicators;
  ProcessInfo& p = header.process;
  if (s.initialized && s.world_rank >= 0) {  // MPI's word over the launcher's variables
    p.rank = s.world_rank;
    p.world_size = s.world_size;
    if (p.launcher.empty()) p.launcher = "mpi";
  }
  p.clock_sync = s.clock_sync;
  if (s.dropped_calls)
    header.diagnostics.warnings.push_back(
        std::to_string(s.dropped_calls) +
        " MPI calls were not recorded: the call log (an eighth of BRICKPROF_BUFFER_MB) is full");
  written_snapshot() = std::move(s);
}

bool call_of(uint64_t recorded, uint64_t* elements, std::optional<CommCall>* call) {
  if ((recorded & kCallTag) == 0) return false;
  const std::optional<Snapshot>& s = written_snapshot();
  const uint64_t slot = recorded & ~kCallTag;
  *elements = 0;
  if (!s || slot >= s->calls.size()) return true;
  const CallRecord& r = s->calls[slot];
  *elements = r.elements;
  if (r.comm >= s->communicators.size()) return true;  // the call failed: no arguments to trust
  *call = CommCall{0, r.op, r.comm, r.peer, r.tag, r.bytes, r.recv_bytes, r.seq};
  return true;
}

}  // namespace brickprof::agent::mpi
