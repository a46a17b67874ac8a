// Point-to-point calls and the waits that complete non-blocking ones. A
// receive names the rank it actually got the message from (MPI_ANY_SOURCE
// resolved through the status) and the bytes that arrived.
#include <cstring>

#include "agent/mpi/forward.h"

using brickprof::agent::mpi::abi;
using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::forward;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::Pmpi;

namespace {

using Request = Handle;

// Room for either ABI's MPI_Status, for a caller that passed
// MPI_STATUS_IGNORE: the agent needs the source and the count.
struct alignas(8) StatusBuffer {
  unsigned char bytes[64] = {};
};

void* status_for(void* user, StatusBuffer& own) {
  return reinterpret_cast<uintptr_t>(user) == abi().status_ignore ? own.bytes : user;
}

int status_int(const void* status, int offset) {
  int v;
  std::memcpy(&v, static_cast<const unsigned char*>(status) + offset, sizeof v);
  return v;
}

// What a completed receive got: its source, tag and bytes.
void fill_received(Call& call, const void* status, Handle type) {
  using GetCountFn = int(const void*, Handle, int*);
  static Pmpi<GetCountFn> pmpi_get_count("PMPI_Get_count");
  const brickprof::agent::mpi::Abi& a = abi();
  int count = 0;
  auto* get_count = pmpi_get_count.get();
  if (get_count && get_count(status, type, &count) == 0 && count >= 0) {
    call.set_count(count);
    call.set_bytes(0, Call::type_bytes(count, type));
  }
  call.set_peer(status_int(status, a.status_source_offset),
                status_int(status, a.status_tag_offset));
}

void fill_send(Call& call, int count, Handle type, int dest, int tag) {
  call.set_count(count);
  call.set_bytes(Call::type_bytes(count, type));
  call.set_peer(dest, tag);
}

}  // namespace

BRICKPROF_MPI_EXPORT int MPI_Send(const void* buf, int count, Handle type, int dest, int tag,
                                  Handle comm) {
  return forward<"MPI_Send">(comm, [&](Call& c) { fill_send(c, count, type, dest, tag); }, buf,
                             count, type, dest, tag, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Ssend(const void* buf, int count, Handle type, int dest, int tag,
                                   Handle comm) {
  return forward<"MPI_Ssend">(comm, [&](Call& c) { fill_send(c, count, type, dest, tag); }, buf,
                              count, type, dest, tag, comm);
}

BRICKPROF_MPI_EXPORT int MPI_Recv(void* buf, int count, Handle type, int source, int tag,
                                  Handle comm, void* status) {
  StatusBuffer own;
  void* st = status_for(status, own);
  return forward<"MPI_Recv">(comm, [&](Call& c) { fill_received(c, st, type); }, buf, count,
                             type, source, tag, comm, st);
}

BRICKPROF_MPI_EXPORT int MPI_Sendrecv(const void* sbuf, int scount, Handle stype, int dest,
                                      int stag, void* rbuf, int rcount, Handle rtype, int source,
                                      int rtag, Handle comm, void* status) {
  StatusBuffer own;
  void* st = status_for(status, own);
  const auto fill = [&](Call& c) {
    fill_received(c, st, rtype);
    const uint64_t received = Call::type_bytes(rcount, rtype);
    c.set_count(scount);
    c.set_bytes(Call::type_bytes(scount, stype), received);
    c.set_peer(dest, stag);
  };
  return forward<"MPI_Sendrecv">(comm, fill, sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                                 source, rtag, comm, st);
}

BRICKPROF_MPI_EXPORT int MPI_Isend(const void* buf, int count, Handle type, int dest, int tag,
                                   Handle comm, Request* request) {
  return forward<"MPI_Isend">(comm, [&](Call& c) { fill_send(c, count, type, dest, tag); }, buf,
                              count, type, dest, tag, comm, request);
}

BRICKPROF_MPI_EXPORT int MPI_Irecv(void* buf, int count, Handle type, int source, int tag,
                                   Handle comm, Request* request) {
  const auto fill = [&](Call& c) {
    c.set_count(count);
    c.set_bytes(0, Call::type_bytes(count, type));  // posted: at most this much
    c.set_peer(source, tag);
  };
  return forward<"MPI_Irecv">(comm, fill, buf, count, type, source, tag, comm, request);
}

// The waits name no communicator: they are recorded on MPI_COMM_WORLD.
BRICKPROF_MPI_EXPORT int MPI_Wait(Request* request, void* status) {
  return forward<"MPI_Wait">(abi().comm_world, [](Call& c) { c.set_count(1); }, request, status);
}

BRICKPROF_MPI_EXPORT int MPI_Waitall(int count, Request* requests, void* statuses) {
  return forward<"MPI_Waitall">(abi().comm_world, [&](Call& c) { c.set_count(count); }, count,
                                requests, statuses);
}

BRICKPROF_MPI_EXPORT int MPI_Waitany(int count, Request* requests, int* index, void* status) {
  return forward<"MPI_Waitany">(abi().comm_world, [&](Call& c) { c.set_count(count); }, count,
                                requests, index, status);
}
