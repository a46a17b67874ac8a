// The collective operations, blocking and non-blocking: bytes are what this
// rank sends (and receives, where that differs), from the counts, the
// number of ranks it exchanges with and PMPI_Type_size; the root is the
// peer. On an intercommunicator a rank exchanges with the remote group:
// the v-collectives' count arrays have the remote group's length, and a
// rooted operation's root is MPI_ROOT on the root itself, MPI_PROC_NULL on
// the rest of its group (which take no part).
#include "agent/mpi/wrappers.h"

using brickprof::CommOp;
using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::in_place;
using brickprof::agent::mpi::missing_pmpi;
using brickprof::agent::mpi::Pmpi;
using brickprof::agent::mpi::sum_of;

namespace {

using Request = Handle;

// One-buffer reductions and broadcasts: count x type.
void fill_simple(Call& call, int count, Handle type, int root = -1) {
  call.set_count(count);
  call.set_bytes(Call::type_bytes(count, type));
  if (root >= 0) call.set_peer(root);
}

// One-buffer rooted operations (broadcast, reduce): count x type, sent by
// the root, or by each rank to it; nothing for a rank that sits out.
void fill_rooted(Call& call, int count, Handle type, int root) {
  if (call.sits_out(root)) return;
  fill_simple(call, count, type, root);
}

// Gather to `root`: each rank sends scount (the root in place: its rcount),
// the root receives rcount from each (the root of an intercommunicator
// sends nothing).
void fill_gather(Call& call, const void* sbuf, int scount, Handle stype, int rcount, Handle rtype,
                 int root) {
  if (call.sits_out(root)) return;
  const bool is_root = call.is_root(root);
  const bool own_in_place = is_root && in_place(sbuf);
  const bool sends = !(is_root && call.intercomm());
  call.set_count(own_in_place ? rcount : sends ? scount : 0);
  call.set_bytes(own_in_place ? Call::type_bytes(rcount, rtype)
                 : sends      ? Call::type_bytes(scount, stype)
                              : 0,
                 is_root ? Call::type_bytes(int64_t{rcount} * call.peer_count(), rtype) : 0);
  call.set_peer(root);
}

// Scatter from `root`: the root sends scount to each, each receives rcount
// (the root in place, or the root of an intercommunicator: nothing).
void fill_scatter(Call& call, int scount, Handle stype, const void* rbuf, int rcount, Handle rtype,
                  int root) {
  if (call.sits_out(root)) return;
  const bool is_root = call.is_root(root);
  const bool receives = !(is_root && (in_place(rbuf) || call.intercomm()));
  call.set_count(receives ? rcount : 0);
  call.set_bytes(is_root ? Call::type_bytes(int64_t{scount} * call.peer_count(), stype) : 0,
                 receives ? Call::type_bytes(rcount, rtype) : 0);
  call.set_peer(root);
}

// Every rank gives scount (in place: its rcount) and gets rcount from each.
void fill_allgather(Call& call, const void* sbuf, int scount, Handle stype, int rcount,
                    Handle rtype) {
  const bool own_in_place = in_place(sbuf);
  call.set_count(own_in_place ? rcount : scount);
  call.set_bytes(own_in_place ? Call::type_bytes(rcount, rtype) : Call::type_bytes(scount, stype),
                 Call::type_bytes(int64_t{rcount} * call.peer_count(), rtype));
}

// Every rank sends scount to each and receives rcount from each.
void fill_alltoall(Call& call, const void* sbuf, int scount, Handle stype, int rcount,
                   Handle rtype) {
  const int64_t n = call.peer_count();
  const int64_t recv = Call::type_bytes(rcount * n, rtype);
  call.set_count(scount);
  call.set_bytes(in_place(sbuf) ? recv : Call::type_bytes(scount * n, stype), recv);
}

}  // namespace

BRICKPROF_MPI_EXPORT int MPI_Barrier(Handle comm) {
  static Pmpi<int(Handle)> pmpi("PMPI_Barrier");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Barrier");
  Call call(CommOp::kBarrier, comm);
  const int rc = f(comm);
  call.done(rc);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Bcast(void* buf, int count, Handle type, int root, Handle comm) {
  static Pmpi<int(void*, int, Handle, int, Handle)> pmpi("PMPI_Bcast");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Bcast");
  Call call(CommOp::kBcast, comm);
  const int rc = f(buf, count, type, root, comm);
  if (call.done(rc)) fill_rooted(call, count, type, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Reduce(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                    int root, Handle comm) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, int, Handle)> pmpi("PMPI_Reduce");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Reduce");
  Call call(CommOp::kReduce, comm);
  const int rc = f(sbuf, rbuf, count, type, op, root, comm);
  if (call.done(rc)) fill_rooted(call, count, type, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Allreduce(const void* sbuf, void* rbuf, int count, Handle type,
                                       Handle op, Handle comm) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, Handle)> pmpi("PMPI_Allreduce");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Allreduce");
  Call call(CommOp::kAllreduce, comm);
  const int rc = f(sbuf, rbuf, count, type, op, comm);
  if (call.done(rc)) fill_simple(call, count, type);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Scan(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                  Handle comm) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, Handle)> pmpi("PMPI_Scan");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Scan");
  Call call(CommOp::kScan, comm);
  const int rc = f(sbuf, rbuf, count, type, op, comm);
  if (call.done(rc)) fill_simple(call, count, type);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Exscan(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                    Handle comm) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, Handle)> pmpi("PMPI_Exscan");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Exscan");
  Call call(CommOp::kExscan, comm);
  const int rc = f(sbuf, rbuf, count, type, op, comm);
  if (call.done(rc)) fill_simple(call, count, type);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Gather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                    int rcount, Handle rtype, int root, Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, int, Handle)> pmpi("PMPI_Gather");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Gather");
  Call call(CommOp::kGather, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  if (call.done(rc)) fill_gather(call, sbuf, scount, stype, rcount, rtype, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Gatherv(const void* sbuf, int scount, Handle stype, void* rbuf,
                                     const int* rcounts, const int* displs, Handle rtype, int root,
                                     Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, const int*, const int*, Handle, int, Handle)>
      pmpi("PMPI_Gatherv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Gatherv");
  Call call(CommOp::kGatherv, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
  if (call.done(rc) && !call.sits_out(root)) {
    const bool is_root = call.is_root(root);
    const bool sends = !(is_root && call.intercomm());
    const int own = is_root && in_place(sbuf) && rcounts ? rcounts[call.comm_rank()] : -1;
    call.set_count(own >= 0 ? own : sends ? scount : 0);
    call.set_bytes(own >= 0 ? Call::type_bytes(own, rtype)
                   : sends  ? Call::type_bytes(scount, stype)
                            : 0,
                   is_root ? Call::type_bytes(sum_of(rcounts, call.peer_count()), rtype) : 0);
    call.set_peer(root);
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Scatter(const void* sbuf, int scount, Handle stype, void* rbuf,
                                     int rcount, Handle rtype, int root, Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, int, Handle)> pmpi("PMPI_Scatter");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Scatter");
  Call call(CommOp::kScatter, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
  if (call.done(rc)) fill_scatter(call, scount, stype, rbuf, rcount, rtype, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Scatterv(const void* sbuf, const int* scounts, const int* displs,
                                      Handle stype, void* rbuf, int rcount, Handle rtype, int root,
                                      Handle comm) {
  static Pmpi<int(const void*, const int*, const int*, Handle, void*, int, Handle, int, Handle)>
      pmpi("PMPI_Scatterv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Scatterv");
  Call call(CommOp::kScatterv, comm);
  const int rc = f(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
  if (call.done(rc) && !call.sits_out(root)) {
    const bool is_root = call.is_root(root);
    const bool receives = !(is_root && (in_place(rbuf) || call.intercomm()));
    call.set_count(receives ? rcount : 0);
    call.set_bytes(is_root ? Call::type_bytes(sum_of(scounts, call.peer_count()), stype) : 0,
                   receives ? Call::type_bytes(rcount, rtype) : 0);
    call.set_peer(root);
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Allgather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                       int rcount, Handle rtype, Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, Handle)> pmpi("PMPI_Allgather");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Allgather");
  Call call(CommOp::kAllgather, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  if (call.done(rc)) fill_allgather(call, sbuf, scount, stype, rcount, rtype);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Allgatherv(const void* sbuf, int scount, Handle stype, void* rbuf,
                                        const int* rcounts, const int* displs, Handle rtype,
                                        Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, const int*, const int*, Handle, Handle)> pmpi(
      "PMPI_Allgatherv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Allgatherv");
  Call call(CommOp::kAllgatherv, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
  if (call.done(rc)) {
    // In place only on an intracommunicator, where its count is its own entry.
    const int own = in_place(sbuf) && rcounts ? rcounts[call.comm_rank()] : -1;
    call.set_count(own >= 0 ? own : scount);
    call.set_bytes(own >= 0 ? Call::type_bytes(own, rtype) : Call::type_bytes(scount, stype),
                   Call::type_bytes(sum_of(rcounts, call.peer_count()), rtype));
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Alltoall(const void* sbuf, int scount, Handle stype, void* rbuf,
                                      int rcount, Handle rtype, Handle comm) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, Handle)> pmpi("PMPI_Alltoall");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Alltoall");
  Call call(CommOp::kAlltoall, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, comm);
  if (call.done(rc)) fill_alltoall(call, sbuf, scount, stype, rcount, rtype);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Alltoallv(const void* sbuf, const int* scounts, const int* sdispls,
                                       Handle stype, void* rbuf, const int* rcounts,
                                       const int* rdispls, Handle rtype, Handle comm) {
  static Pmpi<int(const void*, const int*, const int*, Handle, void*, const int*, const int*,
                  Handle, Handle)>
      pmpi("PMPI_Alltoallv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Alltoallv");
  Call call(CommOp::kAlltoallv, comm);
  const int rc = f(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
  if (call.done(rc)) {
    const uint64_t recv = Call::type_bytes(sum_of(rcounts, call.peer_count()), rtype);
    call.set_bytes(
        in_place(sbuf) ? recv : Call::type_bytes(sum_of(scounts, call.peer_count()), stype),
        recv);
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts,
                                            Handle type, Handle op, Handle comm) {
  static Pmpi<int(const void*, void*, const int*, Handle, Handle, Handle)> pmpi(
      "PMPI_Reduce_scatter");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Reduce_scatter");
  Call call(CommOp::kReduceScatter, comm);
  const int rc = f(sbuf, rbuf, rcounts, type, op, comm);
  if (call.done(rc)) {
    const int own = rcounts && call.comm_rank() >= 0 ? rcounts[call.comm_rank()] : 0;
    call.set_count(sum_of(rcounts, call.comm_size()));
    call.set_bytes(Call::type_bytes(sum_of(rcounts, call.comm_size()), type),
                   Call::type_bytes(own, type));
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount,
                                                  Handle type, Handle op, Handle comm) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, Handle)> pmpi(
      "PMPI_Reduce_scatter_block");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Reduce_scatter_block");
  Call call(CommOp::kReduceScatterBlock, comm);
  const int rc = f(sbuf, rbuf, rcount, type, op, comm);
  if (call.done(rc)) {
    call.set_count(int64_t{rcount} * call.comm_size());
    call.set_bytes(Call::type_bytes(int64_t{rcount} * call.comm_size(), type),
                   Call::type_bytes(rcount, type));
  }
  return rc;
}

// Non-blocking: the call starts the operation (its wait is in MPI_Wait*).

BRICKPROF_MPI_EXPORT int MPI_Ibarrier(Handle comm, Request* request) {
  static Pmpi<int(Handle, Request*)> pmpi("PMPI_Ibarrier");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Ibarrier");
  Call call(CommOp::kIbarrier, comm);
  const int rc = f(comm, request);
  call.done(rc);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Ibcast(void* buf, int count, Handle type, int root, Handle comm,
                                    Request* request) {
  static Pmpi<int(void*, int, Handle, int, Handle, Request*)> pmpi("PMPI_Ibcast");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Ibcast");
  Call call(CommOp::kIbcast, comm);
  const int rc = f(buf, count, type, root, comm, request);
  if (call.done(rc)) fill_rooted(call, count, type, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Ireduce(const void* sbuf, void* rbuf, int count, Handle type,
                                     Handle op, int root, Handle comm, Request* request) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, int, Handle, Request*)> pmpi(
      "PMPI_Ireduce");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Ireduce");
  Call call(CommOp::kIreduce, comm);
  const int rc = f(sbuf, rbuf, count, type, op, root, comm, request);
  if (call.done(rc)) fill_rooted(call, count, type, root);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, Handle type,
                                        Handle op, Handle comm, Request* request) {
  static Pmpi<int(const void*, void*, int, Handle, Handle, Handle, Request*)> pmpi(
      "PMPI_Iallreduce");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Iallreduce");
  Call call(CommOp::kIallreduce, comm);
  const int rc = f(sbuf, rbuf, count, type, op, comm, request);
  if (call.done(rc)) fill_simple(call, count, type);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Iallgather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                        int rcount, Handle rtype, Handle comm, Request* request) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, Handle, Request*)> pmpi(
      "PMPI_Iallgather");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Iallgather");
  Call call(CommOp::kIallgather, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
  if (call.done(rc)) fill_allgather(call, sbuf, scount, stype, rcount, rtype);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Ialltoall(const void* sbuf, int scount, Handle stype, void* rbuf,
                                       int rcount, Handle rtype, Handle comm, Request* request) {
  static Pmpi<int(const void*, int, Handle, void*, int, Handle, Handle, Request*)> pmpi(
      "PMPI_Ialltoall");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Ialltoall");
  Call call(CommOp::kIalltoall, comm);
  const int rc = f(sbuf, scount, stype, rbuf, rcount, rtype, comm, request);
  if (call.done(rc)) fill_alltoall(call, sbuf, scount, stype, rcount, rtype);
  return rc;
}
