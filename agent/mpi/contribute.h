// Puts what the MPI wrappers recorded into the trace being written: the
// communicators, the world rank and size MPI reported and the clock-sync
// samples into its header, and each MPI call's arguments on its scope node
// as the nodes are written (Trace::comm_calls in a built Trace).
#pragma once

#include <cstdint>
#include <optional>

#include "trace/model/trace.h"

namespace brickprof::agent::mpi {

// The header's part, from a snapshot of the call log that call_of() then
// reads. Nothing for a program that never initialised MPI.
void contribute_header(Trace& header);

// A scope's element count as recorded: for an MPI call's scope (tagged
// kCallTag | slot, agent/mpi/calls.h) true, *elements the call's count and,
// where its arguments can be trusted, *call its figures; any other value is
// left alone (false).
bool call_of(uint64_t recorded, uint64_t* elements, std::optional<CommCall>* call);

}  // namespace brickprof::agent::mpi
