// Ping-pong clock offset measurement (see clock_sync.h).
#include "agent/mpi/clock_sync.h"

#include <cstdint>

#include "agent/recorder/clock.h"

namespace brickprof::agent::mpi {
namespace {

// At least kMinTrips round trips; then on until one is as fast as
// kGoodRtt (its error, half of it, is then below 10 us), at most kMaxTrips
// or kMaxNs: on a loaded machine a round trip can take milliseconds when a
// rank waits for a core, and a few more tries usually find a fast one.
constexpr int kMinTrips = 16;
constexpr int kMaxTrips = 512;
constexpr int64_t kGoodRtt = 20'000;
constexpr int64_t kMaxNs = 200'000'000;
constexpr int64_t kDone = -1;  // a ping that tells rank 0 this rank has finished
constexpr int kTag = 0x6270;  // on the agent's own communicator: no program message meets it

using SendFn = int(const void*, int, Handle, int, int, Handle);
using RecvFn = int(void*, int, Handle, int, int, Handle, void*);
using CommDupFn = int(Handle, Handle*);
using CommFreeFn = int(Handle*);

Pmpi<SendFn> pmpi_send("PMPI_Send");
Pmpi<RecvFn> pmpi_recv("PMPI_Recv");
Pmpi<CommDupFn> pmpi_comm_dup("PMPI_Comm_dup");
Pmpi<CommFreeFn> pmpi_comm_free("PMPI_Comm_free");

}  // namespace

Handle start_clock_sync() {
  const Abi& a = abi();
  Handle dup = 0;
  auto* f = pmpi_comm_dup.get();
  if (f && f(a.comm_world, &dup) == kSuccess) return dup;
  return a.comm_world;
}

void end_clock_sync(Handle* comm) {
  const Abi& a = abi();
  if (*comm && a.handle_bits(*comm) != a.handle_bits(a.comm_world))
    if (auto* f = pmpi_comm_free.get()) f(comm);
  *comm = 0;
}

bool measure_clock(Handle comm, ClockSync::Sample* sample) {
  const Abi& a = abi();
  auto* send = pmpi_send.get();
  auto* recv = pmpi_recv.get();
  auto* size_of = pmpi_comm_size.get();
  auto* rank_of = pmpi_comm_rank.get();
  int size = 0, rank = -1;
  if (!send || !recv || !size_of || !rank_of || !comm || !a.byte_type) return false;
  if (size_of(comm, &size) != kSuccess || rank_of(comm, &rank) != kSuccess || size < 2)
    return false;
  void* ignore = reinterpret_cast<void*>(a.status_ignore);
  int64_t t = 0;
  if (rank == 0) {
    // Each other rank in turn: answer its pings with this clock until it
    // says it is done.
    for (int peer = 1; peer < size; ++peer) {
      for (;;) {
        if (recv(&t, sizeof t, a.byte_type, peer, kTag, comm, ignore) != kSuccess) return false;
        if (t == kDone) break;
        t = monotonic_ns();
        if (send(&t, sizeof t, a.byte_type, peer, kTag, comm) != kSuccess) return false;
      }
    }
    return false;  // the reference has no offset
  }
  int64_t best_rtt = INT64_MAX;
  const int64_t start = monotonic_ns();
  for (int i = 0; i < kMaxTrips; ++i) {
    const int64_t t0 = monotonic_ns();
    if (i >= kMinTrips && (best_rtt <= kGoodRtt || t0 - start > kMaxNs)) break;
    if (send(&t0, sizeof t0, a.byte_type, 0, kTag, comm) != kSuccess) return false;
    int64_t reference = 0;
    if (recv(&reference, sizeof reference, a.byte_type, 0, kTag, comm, ignore) != kSuccess)
      return false;
    const int64_t t1 = monotonic_ns();
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      const int64_t middle = t0 + (t1 - t0) / 2;
      *sample = {middle, middle - reference, best_rtt};
    }
  }
  return send(&kDone, sizeof kDone, a.byte_type, 0, kTag, comm) == kSuccess;
}

}  // namespace brickprof::agent::mpi
