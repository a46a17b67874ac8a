// The collective operations, blocking and non-blocking: bytes are what this
// rank sends (and receives, where that differs), from the counts, the
// number of ranks it exchanges with and PMPI_Type_size; the root is the
// peer. On an intercommunicator a rank exchanges with the remote group:
// the v-collectives' count arrays have the remote group's length, and a
// rooted operation's root is MPI_ROOT on the root itself, MPI_PROC_NULL on
// the rest of its group (which take no part).
#include "agent/mpi/forward.h"

using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::forward;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::in_place;
using brickprof::agent::mpi::kNoFill;
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
  return forward<"MPI_Barrier">(comm, kNoFill, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Bcast(void* buf, int count, Handle type, int root, Handle comm) {
  return forward<"MPI_Bcast">(comm, [&](Call& c) { fill_rooted(c, count, type, root); }, buf,
                              count, type, root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Reduce(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                    int root, Handle comm) {
  return forward<"MPI_Reduce">(comm, [&](Call& c) { fill_rooted(c, count, type, root); }, sbuf,
                               rbuf, count, type, op, root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Allreduce(const void* sbuf, void* rbuf, int count, Handle type,
                                       Handle op, Handle comm) {
  return forward<"MPI_Allreduce">(comm, [&](Call& c) { fill_simple(c, count, type); }, sbuf,
                                  rbuf, count, type, op, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Scan(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                  Handle comm) {
  return forward<"MPI_Scan">(comm, [&](Call& c) { fill_simple(c, count, type); }, sbuf, rbuf,
                             count, type, op, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Exscan(const void* sbuf, void* rbuf, int count, Handle type, Handle op,
                                    Handle comm) {
  return forward<"MPI_Exscan">(comm, [&](Call& c) { fill_simple(c, count, type); }, sbuf, rbuf,
                               count, type, op, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Gather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                    int rcount, Handle rtype, int root, Handle comm) {
  const auto fill = [&](Call& c) { fill_gather(c, sbuf, scount, stype, rcount, rtype, root); };
  return forward<"MPI_Gather">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Gatherv(const void* sbuf, int scount, Handle stype, void* rbuf,
                                     const int* rcounts, const int* displs, Handle rtype, int root,
                                     Handle comm) {
  const auto fill = [&](Call& c) {
    if (c.sits_out(root)) return;
    const bool is_root = c.is_root(root);
    const bool sends = !(is_root && c.intercomm());
    const int own = is_root && in_place(sbuf) && rcounts ? rcounts[c.comm_rank()] : -1;
    c.set_count(own >= 0 ? own : sends ? scount : 0);
    c.set_bytes(own >= 0 ? Call::type_bytes(own, rtype)
                : sends  ? Call::type_bytes(scount, stype)
                         : 0,
                is_root ? Call::type_bytes(sum_of(rcounts, c.peer_count()), rtype) : 0);
    c.set_peer(root);
  };
  return forward<"MPI_Gatherv">(comm, fill, sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                                root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Scatter(const void* sbuf, int scount, Handle stype, void* rbuf,
                                     int rcount, Handle rtype, int root, Handle comm) {
  const auto fill = [&](Call& c) { fill_scatter(c, scount, stype, rbuf, rcount, rtype, root); };
  return forward<"MPI_Scatter">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Scatterv(const void* sbuf, const int* scounts, const int* displs,
                                      Handle stype, void* rbuf, int rcount, Handle rtype, int root,
                                      Handle comm) {
  const auto fill = [&](Call& c) {
    if (c.sits_out(root)) return;
    const bool is_root = c.is_root(root);
    const bool receives = !(is_root && (in_place(rbuf) || c.intercomm()));
    c.set_count(receives ? rcount : 0);
    c.set_bytes(is_root ? Call::type_bytes(sum_of(scounts, c.peer_count()), stype) : 0,
                receives ? Call::type_bytes(rcount, rtype) : 0);
    c.set_peer(root);
  };
  return forward<"MPI_Scatterv">(comm, fill, sbuf, scounts, displs, stype, rbuf, rcount, rtype,
                                 root, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Allgather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                       int rcount, Handle rtype, Handle comm) {
  const auto fill = [&](Call& c) { fill_allgather(c, sbuf, scount, stype, rcount, rtype); };
  return forward<"MPI_Allgather">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Allgatherv(const void* sbuf, int scount, Handle stype, void* rbuf,
                                        const int* rcounts, const int* displs, Handle rtype,
                                        Handle comm) {
  const auto fill = [&](Call& c) {
    // In place only on an intracommunicator, where its count is its own entry.
    const int own = in_place(sbuf) && rcounts ? rcounts[c.comm_rank()] : -1;
    c.set_count(own >= 0 ? own : scount);
    c.set_bytes(own >= 0 ? Call::type_bytes(own, rtype) : Call::type_bytes(scount, stype),
                Call::type_bytes(sum_of(rcounts, c.peer_count()), rtype));
  };
  return forward<"MPI_Allgatherv">(comm, fill, sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                                   comm);
}

BRICKPROF_MPI_EXPORT int MPI_Alltoall(const void* sbuf, int scount, Handle stype, void* rbuf,
                                      int rcount, Handle rtype, Handle comm) {
  const auto fill = [&](Call& c) { fill_alltoall(c, sbuf, scount, stype, rcount, rtype); };
  return forward<"MPI_Alltoall">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Alltoallv(const void* sbuf, const int* scounts, const int* sdispls,
                                       Handle stype, void* rbuf, const int* rcounts,
                                       const int* rdispls, Handle rtype, Handle comm) {
  const auto fill = [&](Call& c) {
    const uint64_t recv = Call::type_bytes(sum_of(rcounts, c.peer_count()), rtype);
    c.set_bytes(in_place(sbuf) ? recv : Call::type_bytes(sum_of(scounts, c.peer_count()), stype),
                recv);
  };
  return forward<"MPI_Alltoallv">(comm, fill, sbuf, scounts, sdispls, stype, rbuf, rcounts,
                                  rdispls, rtype, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Reduce_scatter(const void* sbuf, void* rbuf, const int* rcounts,
                                            Handle type, Handle op, Handle comm) {
  const auto fill = [&](Call& c) {
    const int own = rcounts && c.comm_rank() >= 0 ? rcounts[c.comm_rank()] : 0;
    c.set_count(sum_of(rcounts, c.comm_size()));
    c.set_bytes(Call::type_bytes(sum_of(rcounts, c.comm_size()), type),
                Call::type_bytes(own, type));
  };
  return forward<"MPI_Reduce_scatter">(comm, fill, sbuf, rbuf, rcounts, type, op, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Reduce_scatter_block(const void* sbuf, void* rbuf, int rcount,
                                                  Handle type, Handle op, Handle comm) {
  const auto fill = [&](Call& c) {
    c.set_count(int64_t{rcount} * c.comm_size());
    c.set_bytes(Call::type_bytes(int64_t{rcount} * c.comm_size(), type),
                Call::type_bytes(rcount, type));
  };
  return forward<"MPI_Reduce_scatter_block">(comm, fill, sbuf, rbuf, rcount, type, op, comm);
}

// Non-blocking: the call starts the operation (its wait is in MPI_Wait*).

BRICKPROF_MPI_EXPORT int MPI_Ibarrier(Handle comm, Request* request) {
  return forward<"MPI_Ibarrier">(comm, kNoFill, comm, request);
}

BRICKPROF_MPI_EXPORT int MPI_Ibcast(void* buf, int count, Handle type, int root, Handle comm,
                                    Request* request) {
  return forward<"MPI_Ibcast">(comm, [&](Call& c) { fill_rooted(c, count, type, root); }, buf,
                               count, type, root, comm, request);
}

BRICKPROF_MPI_EXPORT int MPI_Ireduce(const void* sbuf, void* rbuf, int count, Handle type,
                                     Handle op, int root, Handle comm, Request* request) {
  return forward<"MPI_Ireduce">(comm, [&](Call& c) { fill_rooted(c, count, type, root); }, sbuf,
                                rbuf, count, type, op, root, comm, request);
}

BRICKPROF_MPI_EXPORT int MPI_Iallreduce(const void* sbuf, void* rbuf, int count, Handle type,
                                        Handle op, Handle comm, Request* request) {
  return forward<"MPI_Iallreduce">(comm, [&](Call& c) { fill_simple(c, count, type); }, sbuf,
                                   rbuf, count, type, op, comm, request);
}

BRICKPROF_MPI_EXPORT int MPI_Iallgather(const void* sbuf, int scount, Handle stype, void* rbuf,
                                        int rcount, Handle rtype, Handle comm, Request* request) {
  const auto fill = [&](Call& c) { fill_allgather(c, sbuf, scount, stype, rcount, rtype); };
  return forward<"MPI_Iallgather">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, comm,
                                   request);
}

BRICKPROF_MPI_EXPORT int MPI_Ialltoall(const void* sbuf, int scount, Handle stype, void* rbuf,
                                       int rcount, Handle rtype, Handle comm, Request* request) {
  const auto fill = [&](Call& c) { fill_alltoall(c, sbuf, scount, stype, rcount, rtype); };
  return forward<"MPI_Ialltoall">(comm, fill, sbuf, scount, stype, rbuf, rcount, rtype, comm,
                                  request);
}
