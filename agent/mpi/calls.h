// What the MPI wrappers record: each call as a scope (the recorder's push
// and pop, so it nests under the program's bricks and obeys capture windows
// and the buffer cap) plus one record of its arguments in a bounded call
// log; the communicators seen, numbered alike on every member; and the
// process's place in MPI_COMM_WORLD.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/mpi/abi.h"
#include "trace/model/comm.h"
#include "trace/model/job_summary.h"

namespace brickprof::agent::mpi {

// The scope of a recorded call carries kCallTag | slot as its element count
// until the trace is built (contribute.h), where the slot's record replaces
// it: no program passes 2^62 elements.
inline constexpr uint64_t kCallTag = uint64_t{1} << 62;

struct CallRecord {
  uint64_t elements = 0;  // the count argument
  uint64_t bytes = 0;
  uint64_t recv_bytes = 0;
  uint64_t seq = 0;
  uint32_t comm = 0;  // communicator id
  int32_t peer = -1;
  int32_t tag = -1;
  CommOp op = CommOp::kBarrier;
};

// One call, around its PMPI_ function: the constructor opens its scope
// (the last thing before PMPI), done() closes it (the first thing after) and
// then, if the call succeeded, looks its communicator up and numbers a
// collective; the setters fill the rest, with PMPI's help where needed.
// Nothing asks MPI about the arguments before the call has validated them.
class Call {
 public:
  Call(CommOp op, Handle comm);
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // Whether to fill the record: the call succeeded and is logged.
  bool done(int rc);

  // count x PMPI_Type_size(type); 0 for a count <= 0.
  static uint64_t type_bytes(int64_t count, Handle type);
  // The communicator's size and this rank in it (after done()): of the
  // local group, for an intercommunicator.
  int comm_size() const { return comm_size_; }
  int comm_rank() const { return comm_rank_; }
  // How many ranks this one exchanges with: the remote group's size on an
  // intercommunicator (the length of a v-collective's count arrays), else
  // comm_size().
  int peer_count() const { return peer_count_; }
  bool intercomm() const { return intercomm_; }
  // Whether this process is the root of a rooted collective: its rank on
  // an intracommunicator, MPI_ROOT on an intercommunicator.
  bool is_root(int root) const;
  // Whether it takes part at all (MPI_PROC_NULL: the root's group on an
  // intercommunicator, but not the root).
  bool sits_out(int root) const;

  void set_count(int64_t count);
  void set_bytes(uint64_t send, uint64_t recv = 0);
  void set_peer(int peer, int tag = -1);

 private:
  CallRecord* slot_ = nullptr;  // null: not logged (log full, recorder off)
  uint64_t slot_index_ = 0;
  CommOp op_;
  Handle comm_ = 0;
  int comm_size_ = 1;
  int comm_rank_ = -1;
  int peer_count_ = 1;
  bool intercomm_ = false;
  bool open_ = false;
};

// A communicator the program freed: its handle may be reused for a new one.
void forget_communicator(Handle comm);
// Registers a communicator a wrapped constructor returned, so its number
// among those with the same members follows creation order on every member.
void register_communicator(Handle comm);

// MPI_Init/MPI_Init_thread returned successfully: note the world, learn
// which ranks have the agent (peers.h) and measure the clock against rank
// 0 among those. MPI_Finalize is about to run: measure again.
void on_initialized();
void before_finalize();
// MPI_Finalize returned: no PMPI_ call is allowed from here on.
void after_finalize();

// The collective call a scope's recorded element count names (kCallTag |
// slot), with its communicator's key, size and this rank in it; false for
// any other scope, a call that failed, or one that is not a collective.
bool collective_of(uint64_t recorded, CollectiveArrival* out);

// What contribute.h turns into the trace.
struct Snapshot {
  bool initialized = false;
  int64_t world_rank = -1;
  int64_t world_size = 0;
  std::vector<CallRecord> calls;  // by slot
  std::vector<Communicator> communicators;
  ClockSync clock_sync;
  uint64_t dropped_calls = 0;  // not logged: the log was full
  std::vector<std::string> notes;  // for the trace's warnings: the peers, calls not recorded
};
Snapshot snapshot();

}  // namespace brickprof::agent::mpi
