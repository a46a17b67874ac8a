// MPI_Init, MPI_Init_thread and MPI_Finalize (the clock measurements ride
// on them), and the communicator constructors, whose results the registry
// numbers in creation order.
#include <atomic>

#include "agent/io/log.h"
#include "agent/mpi/wrappers.h"

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

using brickprof::CommOp;
using brickprof::agent::mpi::abi;
using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::missing_pmpi;
using brickprof::agent::mpi::Pmpi;
namespace mpi = brickprof::agent::mpi;

BRICKPROF_MPI_EXPORT int MPI_Init(int* argc, char*** argv) {
  static Pmpi<int(int*, char***)> pmpi("PMPI_Init");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Init");
  Call call(CommOp::kInit, abi().comm_world);
  const int rc = f(argc, argv);
  call.done(rc);
  if (rc == 0) mpi::on_initialized();
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  static Pmpi<int(int*, char***, int, int*)> pmpi("PMPI_Init_thread");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Init_thread");
  Call call(CommOp::kInit, abi().comm_world);
  const int rc = f(argc, argv, required, provided);
  call.done(rc);
  if (rc == 0) mpi::on_initialized();
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Finalize() {
  static Pmpi<int()> pmpi("PMPI_Finalize");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Finalize");
  mpi::before_finalize();
  Call call(CommOp::kFinalize, abi().comm_world);
  const int rc = f();
  call.done(rc);
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
  static Pmpi<int(Handle, Handle*)> pmpi("PMPI_Comm_dup");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_dup");
  Call call(CommOp::kCommDup, comm);
  const int rc = f(comm, created);
  if (call.done(rc)) register_new(created);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Comm_split(Handle comm, int color, int key, Handle* created) {
  static Pmpi<int(Handle, int, int, Handle*)> pmpi("PMPI_Comm_split");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_split");
  Call call(CommOp::kCommSplit, comm);
  const int rc = f(comm, color, key, created);
  if (call.done(rc)) register_new(created);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Comm_split_type(Handle comm, int type, int key, Handle info,
                                             Handle* created) {
  static Pmpi<int(Handle, int, int, Handle, Handle*)> pmpi("PMPI_Comm_split_type");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_split_type");
  Call call(CommOp::kCommSplitType, comm);
  const int rc = f(comm, type, key, info, created);
  if (call.done(rc)) register_new(created);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Comm_create(Handle comm, Handle group, Handle* created) {
  static Pmpi<int(Handle, Handle, Handle*)> pmpi("PMPI_Comm_create");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_create");
  Call call(CommOp::kCommCreate, comm);
  const int rc = f(comm, group, created);
  if (call.done(rc)) register_new(created);
  return rc;
}

// Not a recorded call: its handle may name a new communicator afterwards.
BRICKPROF_MPI_EXPORT int MPI_Comm_free(Handle* comm) {
  static Pmpi<int(Handle*)> pmpi("PMPI_Comm_free");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Comm_free");
  if (comm) mpi::forget_communicator(*comm);
  return f(comm);
}
