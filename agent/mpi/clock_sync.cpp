// Ping-pong clock offset measurement over a tree of the members (see
// clock_sync.h).
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
constexpr int64_t kDone = -1;  // a ping that tells the parent this child has finished
constexpr int kTag = 0x6270;   // on the members' own communicator: no program message meets it
// MPI_Comm_create_group's tag: tells the agent's call apart from one the
// program might make on MPI_COMM_WORLD at the same time.
constexpr int kGroupTag = 0x62726f66;

using SendFn = int(const void*, int, Handle, int, int, Handle);
using RecvFn = int(void*, int, Handle, int, int, Handle, void*);
using CommGroupFn = int(Handle, Handle*);
using GroupInclFn = int(Handle, int, const int*, Handle*);
using CommCreateGroupFn = int(Handle, Handle, int, Handle*);
using GroupFreeFn = int(Handle*);
using CommFreeFn = int(Handle*);

Pmpi<SendFn> pmpi_send("PMPI_Send");
Pmpi<RecvFn> pmpi_recv("PMPI_Recv");
Pmpi<CommGroupFn> pmpi_comm_group("PMPI_Comm_group");
Pmpi<GroupInclFn> pmpi_group_incl("PMPI_Group_incl");
Pmpi<CommCreateGroupFn> pmpi_comm_create_group("PMPI_Comm_create_group");
Pmpi<GroupFreeFn> pmpi_group_free("PMPI_Group_free");
Pmpi<CommFreeFn> pmpi_comm_free("PMPI_Comm_free");

// Where a node stands against rank 0: its offset and that offset's error.
struct ToRoot {
  int64_t offset_ns = 0;
  int64_t error_ns = 0;
};

// The best of a run of pings to `parent`, as today's single exchange did;
// then the parent's own standing, which it sends back for the kDone ping.
bool measure_against_parent(Handle comm, int parent, ClockSync::Sample* best, ToRoot* parents) {
  const Abi& a = abi();
  auto* send = pmpi_send.get();
  auto* recv = pmpi_recv.get();
  void* ignore = reinterpret_cast<void*>(a.status_ignore);
  int64_t best_rtt = INT64_MAX;
  const int64_t start = monotonic_ns();
  for (int i = 0; i < kMaxTrips; ++i) {
    const int64_t t0 = monotonic_ns();
    if (i >= kMinTrips && (best_rtt <= kGoodRtt || t0 - start > kMaxNs)) break;
    if (send(&t0, sizeof t0, a.byte_type, parent, kTag, comm) != kSuccess) return false;
    int64_t reference = 0;
    if (recv(&reference, sizeof reference, a.byte_type, parent, kTag, comm, ignore) != kSuccess)
      return false;
    const int64_t t1 = monotonic_ns();
    if (t1 - t0 < best_rtt) {
      best_rtt = t1 - t0;
      const int64_t middle = t0 + (t1 - t0) / 2;
      *best = {middle, middle - reference, best_rtt};
    }
  }
  return send(&kDone, sizeof kDone, a.byte_type, parent, kTag, comm) == kSuccess &&
         recv(parents, sizeof *parents, a.byte_type, parent, kTag, comm, ignore) == kSuccess;
}

// Answers `child`'s pings with this clock until it is done, then tells it
// where this node stands against rank 0.
bool answer(Handle comm, int child, const ToRoot& mine) {
  const Abi& a = abi();
  auto* send = pmpi_send.get();
  auto* recv = pmpi_recv.get();
  void* ignore = reinterpret_cast<void*>(a.status_ignore);
  for (;;) {
    int64_t t = 0;
    if (recv(&t, sizeof t, a.byte_type, child, kTag, comm, ignore) != kSuccess) return false;
    if (t == kDone) return send(&mine, sizeof mine, a.byte_type, child, kTag, comm) == kSuccess;
    t = monotonic_ns();
    if (send(&t, sizeof t, a.byte_type, child, kTag, comm) != kSuccess) return false;
  }
}

}  // namespace

Handle start_clock_sync(const std::vector<int>& members) {
  const Abi& a = abi();
  auto* group_of = pmpi_comm_group.get();
  auto* incl = pmpi_group_incl.get();
  auto* create = pmpi_comm_create_group.get();
  auto* group_free = pmpi_group_free.get();
  if (!group_of || !incl || !create || !group_free || members.size() < 2) return 0;
  Handle world_group = 0, group = 0, comm = 0;
  if (group_of(a.comm_world, &world_group) != kSuccess) return 0;
  const bool made =
      incl(world_group, static_cast<int>(members.size()), members.data(), &group) == kSuccess &&
      create(a.comm_world, group, kGroupTag, &comm) == kSuccess;
  if (group) group_free(&group);
  group_free(&world_group);
  if (!made || a.handle_bits(comm) == a.handle_bits(a.comm_null)) return 0;
  return comm;
}

void end_clock_sync(Handle* comm) {
  if (*comm)
    if (auto* f = pmpi_comm_free.get()) f(comm);
  *comm = 0;
}

bool measure_clock(Handle comm, ClockSync::Sample* sample) {
  const Abi& a = abi();
  auto* size_of = pmpi_comm_size.get();
  auto* rank_of = pmpi_comm_rank.get();
  int size = 0, rank = -1;
  if (!pmpi_send.get() || !pmpi_recv.get() || !size_of || !rank_of || !comm || !a.byte_type)
    return false;
  if (size_of(comm, &size) != kSuccess || rank_of(comm, &rank) != kSuccess || size < 2)
    return false;
  // The members' order is rank 0's list: rank 0 first, the tree's root.
  ToRoot mine;
  bool measured = false;
  if (rank > 0) {
    ClockSync::Sample best;
    ToRoot parents;
    if (!measure_against_parent(comm, (rank - 1) / 2, &best, &parents)) return false;
    mine = {best.offset_ns + parents.offset_ns, best.rtt_ns / 2 + parents.error_ns};
    // The model keeps a round trip per sample, whose half is its error.
    *sample = {best.local_ns, mine.offset_ns, 2 * mine.error_ns};
    measured = true;
  }
  for (int child : {2 * rank + 1, 2 * rank + 2})
    if (child < size && !answer(comm, child, mine)) return false;
  return measured;
}

}  // namespace brickprof::agent::mpi
