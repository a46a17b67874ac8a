// MPI_Init, MPI_Init_thread and MPI_Finalize (the clock measurements ride
// on them), and the communicator constructors, whose results the registry
// numbers in creation order.
#include <atomic>

#include "agent/io/log.h"
#include "agent/mpi/forward.h"

namespace brickprof::agent::mpi {

int missing_pmpi(const char* function) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    log_warn(std::string(function) + " was called but no MPI library in the process has PMPI_" +
             (function + 4) + "; returning MPI_ERR_INTERN");
  return abi().error_intern;
}

int64_t sum_of(const int* counts, int n) {
  int64_t total = 0;
  for (int i = 0; counts && i < n; ++i) total += counts[i] > 0 ? counts[i] : 0;
  return total;
}

}  // namespace brickprof::agent::mpi

using brickprof::agent::mpi::abi;
using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::forward;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::kNoFill;
using brickprof::agent::mpi::missing_pmpi;
using brickprof::agent::mpi::Pmpi;
namespace mpi = brickprof::agent::mpi;

BRICKPROF_MPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  const int rc = forward<"MPI_Init">(abi().comm_world, kNoFill, argc, argv);
  if (rc == 0) mpi::on_initialized();
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc =
      forward<"MPI_Init_thread">(abi().comm_world, kNoFill, argc, argv, required, provided);
  if (rc == 0) mpi::on_initialized();
  return rc;
}

// The last clock measurement goes before the call (it does nothing unless
// MPI_Init came through here and found PMPI_).
BRICKPROF_MPI_EXPORT int MPI_Finalize() {
  mpi::before_finalize();
  const int rc = forward<"MPI_Finalize">(abi().comm_world, kNoFill);
  if (rc == 0) mpi::after_finalize();
  return rc;
}

namespace {

// A constructor's new communicator, unless it is MPI_COMM_NULL (a rank
// that split with MPI_UNDEFINED, or is not in the group).
void register_new(Handle* created) {
  if (created && abi().handle_bits(*created) != abi().handle_bits(abi().comm_null))
    mpi::register_communicator(*created);
}

}  // namespace

BRICKPROF_MPI_EXPORT int MPI_Comm_dup(Handle comm, Handle* created) {
  return forward<"MPI_Comm_dup">(comm, [&](Call&) { register_new(created); }, comm, created);
}

BRICKPROF_MPI_EXPORT int MPI_Comm_split(Handle comm, int color, int key, Handle* created) {
  return forward<"MPI_Comm_split">(comm, [&](Call&) { register_new(created); }, comm, color, key,
                                   created);
}

BRICKPROF_MPI_EXPORT int MPI_Comm_split_type(Handle comm, int type, int key, Handle info,
                                             Handle* created) {
  return forward<"MPI_Comm_split_type">(comm, [&](Call&) { register_new(created); }, comm, type,
                                        key, info, created);
}

BRICKPROF_MPI_EXPORT int MPI_Comm_create(Handle comm, Handle group, Handle* created) {
  return forward<"MPI_Comm_create">(comm, [&](Call&) { register_new(created); }, comm, group,
                                    created);
}

// Not a recorded call: its handle may name a new communicator afterwards.
BRICKPROF_MPI_EXPORT int MPI_Comm_free(Handle* comm) {
  static Pmpi<int(Handle*)> pmpi("PMPI_Comm_free");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_free");
  if (comm) mpi::forget_communicator(*comm);
  return f(comm);
}
