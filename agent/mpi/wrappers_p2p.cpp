// Point-to-point calls and the waits that complete non-blocking ones. A
// receive names the rank it actually got the message from (MPI_ANY_SOURCE
// resolved through the status) and the bytes that arrived.
#include <cstring>

#include "agent/mpi/wrappers.h"

using brickprof::CommOp;
using brickprof::agent::mpi::abi;
using brickprof::agent::mpi::Call;
using brickprof::agent::mpi::Handle;
using brickprof::agent::mpi::missing_pmpi;
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
  static Pmpi<int(const void*, int, Handle, int, int, Handle)> pmpi("PMPI_Send");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Send");
  Call call(CommOp::kSend, comm);
  const int rc = f(buf, count, type, dest, tag, comm);
  if (call.done(rc)) fill_send(call, count, type, dest, tag);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Ssend(const void* buf, int count, Handle type, int dest, int tag,
                                   Handle comm) {
  static Pmpi<int(const void*, int, Handle, int, int, Handle)> pmpi("PMPI_Ssend");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Ssend");
  Call call(CommOp::kSsend, comm);
  const int rc = f(buf, count, type, dest, tag, comm);
  if (call.done(rc)) fill_send(call, count, type, dest, tag);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Recv(void* buf, int count, Handle type, int source, int tag,
                                  Handle comm, void* status) {
  static Pmpi<int(void*, int, Handle, int, int, Handle, void*)> pmpi("PMPI_Recv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Recv");
  StatusBuffer own;
  void* st = status_for(status, own);
  Call call(CommOp::kRecv, comm);
  const int rc = f(buf, count, type, source, tag, comm, st);
  if (call.done(rc)) fill_received(call, st, type);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Sendrecv(const void* sbuf, int scount, Handle stype, int dest,
                                      int stag, void* rbuf, int rcount, Handle rtype, int source,
                                      int rtag, Handle comm, void* status) {
  static Pmpi<int(const void*, int, Handle, int, int, void*, int, Handle, int, int, Handle, void*)>
      pmpi("PMPI_Sendrecv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Sendrecv");
  StatusBuffer own;
  void* st = status_for(status, own);
  Call call(CommOp::kSendrecv, comm);
  const int rc = f(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
  if (call.done(rc)) {
    fill_received(call, st, rtype);
    const uint64_t received = Call::type_bytes(rcount, rtype);
    call.set_count(scount);
    call.set_bytes(Call::type_bytes(scount, stype), received);
    call.set_peer(dest, stag);
  }
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Isend(const void* buf, int count, Handle type, int dest, int tag,
                                   Handle comm, Request* request) {
  static Pmpi<int(const void*, int, Handle, int, int, Handle, Request*)> pmpi("PMPI_Isend");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Isend");
  Call call(CommOp::kIsend, comm);
  const int rc = f(buf, count, type, dest, tag, comm, request);
  if (call.done(rc)) fill_send(call, count, type, dest, tag);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Irecv(void* buf, int count, Handle type, int source, int tag,
                                   Handle comm, Request* request) {
  static Pmpi<int(void*, int, Handle, int, int, Handle, Request*)> pmpi("PMPI_Irecv");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Irecv");
  Call call(CommOp::kIrecv, comm);
  const int rc = f(buf, count, type, source, tag, comm, request);
  if (call.done(rc)) {
    call.set_count(count);
    call.set_bytes(0, Call::type_bytes(count, type));  // posted: at most this much
    call.set_peer(source, tag);
  }
  return rc;
}

// The waits name no communicator: they are recorded on MPI_COMM_WORLD.
BRICKPROF_MPI_EXPORT int MPI_Wait(Request* request, void* status) {
  static Pmpi<int(Request*, void*)> pmpi("PMPI_Wait");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Wait");
  Call call(CommOp::kWait, abi().comm_world);
  const int rc = f(request, status);
  if (call.done(rc)) call.set_count(1);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Waitall(int count, Request* requests, void* statuses) {
  static Pmpi<int(int, Request*, void*)> pmpi("PMPI_Waitall");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Waitall");
  Call call(CommOp::kWaitall, abi().comm_world);
  const int rc = f(count, requests, statuses);
  if (call.done(rc)) call.set_count(count);
  return rc;
}

BRICKPROF_MPI_EXPORT int MPI_Waitany(int count, Request* requests, int* index, void* status) {
  static Pmpi<int(int, Request*, int*, void*)> pmpi("PMPI_Waitany");
  auto* f = pmpi.get();
  if (!f) return missing_pmpi("MPI_Waitany");
  Call call(CommOp::kWaitany, abi().comm_world);
  const int rc = f(count, requests, index, status);
  if (call.done(rc)) call.set_count(count);
  return rc;
}
