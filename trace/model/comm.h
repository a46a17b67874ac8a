// The communication part of the trace model: what each recorded MPI call did
// (operation, communicator, peer or root, bytes, and the sequence number
// that matches one collective across ranks), the communicators a process
// used, and how its clock stood against rank 0's (for `merge`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brickprof {

// The MPI functions the agent records, one value each.
enum class CommOp : uint8_t {
  kInit,
  kFinalize,
  kClockSync,  // the agent's own offset measurement at init and finalize
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kReduceScatter,
  kReduceScatterBlock,
  kScan,
  kExscan,
  kIbarrier,
  kIbcast,
  kIreduce,
  kIallreduce,
  kIallgather,
  kIalltoall,
  kCommDup,
  kCommSplit,
  kCommSplitType,
  kCommCreate,
  kSend,
  kSsend,
  kRecv,
  kSendrecv,
  kIsend,
  kIrecv,
  kWait,
  kWaitall,
  kWaitany,
};

// "allreduce", "send", ... (the MPI function without "MPI_", lower case).
std::string_view to_string(CommOp op);
bool parse(std::string_view text, CommOp* out);
// The function's name as the trace's node shows it: "MPI_Allreduce".
std::string_view mpi_function_name(CommOp op);

// How the ranks of one collective wait for each other, as Scalasca names
// the patterns: everyone for the last (N x N), the receivers for the root
// (1 to N), the root for the last sender (N to 1), each rank for those
// before it (prefix).
enum class WaitPattern : uint8_t { kNone, kAllToAll, kOneToAll, kAllToOne, kPrefix };

// Whether the op is a collective (every member of the communicator calls it,
// in the same order, so (communicator, seq) names one instance).
bool is_collective(CommOp op);
WaitPattern wait_pattern(CommOp op);

// One recorded MPI call: the scope node the call is, with its arguments.
struct CommCall {
  uint32_t node = 0;  // the call's node (a scope of category Communication)
  CommOp op = CommOp::kBarrier;
  uint32_t comm = 0;        // Trace::communicators[comm]
  int32_t peer = -1;        // root of a rooted collective, peer of a point-to-point call; -1 none
  int32_t tag = -1;         // point-to-point tag, -1 none
  uint64_t bytes = 0;       // what this rank sends: count x type size (PMPI_Type_size)
  uint64_t recv_bytes = 0;  // what it receives, where that differs (gather, alltoall, recv)
  // Collectives: the n-th collective this process made on the communicator
  // (from 1); the same n on every member names the same instance. 0 else.
  uint64_t seq = 0;
};

// A communicator as one process knew it. `key` is the same on every member
// (a hash of its members' world ranks and how many communicators with those
// members the process had made before), so ranks' calls can be matched.
struct Communicator {
  uint32_t id = 0;
  std::string name;  // "MPI_COMM_WORLD", "comm 1", ...
  uint64_t key = 0;
  int32_t size = 0;
  int32_t rank = -1;    // this process's rank in it
  uint32_t source = 0;  // merged traces: Trace::sources[source] made the calls
};

// This process's clock against the reference rank's: local - reference, as
// measured by ping-pong (the sample of least round trip), at MPI_Init and
// again at MPI_Finalize; two samples also give the drift.
struct ClockSync {
  struct Sample {
    int64_t local_ns = 0;   // when, on this process's clock
    int64_t offset_ns = 0;  // local - reference
    int64_t rtt_ns = 0;     // round trip of the sample used (error bound: rtt/2)
    bool operator==(const Sample&) const = default;
  };
  int32_t reference_rank = -1;  // -1: not measured
  std::vector<Sample> samples;  // in time order
  bool operator==(const ClockSync&) const = default;

  bool measured() const { return reference_rank >= 0; }
  // local - reference at local time t: the line through the first and last
  // samples (offset and drift), or, when their offsets differ by less than
  // their errors (half a round trip each), the offset of the one with the
  // shorter round trip; one sample's offset; 0 when there is none.
  double offset_at(int64_t local_ns) const;
  // A local time on the reference's clock: t - offset_at(t), rounded,
  // never below 0 (a trace's times are not negative); 0 stays 0 (no time).
  int64_t aligned(int64_t local_ns) const;
};

}  // namespace brickprof
