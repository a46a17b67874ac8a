// Every MPI function libbrickprof.so exports, and what it does with a call:
// the one list. The wrappers find their row here at compile time (forward.h),
// the trace's "seen but not recorded" line counts by row (missed.h), and a
// test checks the table equals the agent's exported MPI_* symbols
// (tests/mpi/wrapped_test.cpp).
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

#include "trace/model/comm.h"

namespace brickprof::agent::mpi {

enum class Wrap : unsigned char {
  kRecorded,  // a scope in the trace and a record in the call log (calls.h), as `op`
  kCounted,   // passed through and counted; named in the trace's warnings (missed.h)
  kNoted,     // passed through; the communicator registry notes what it did
};

struct WrappedCall {
  std::string_view name;
  Wrap how;
  CommOp op = CommOp::kBarrier;  // kRecorded only
};

inline constexpr WrappedCall kWrapped[] = {
    // Lifecycle and communicators (wrappers_lifecycle.cpp).
    {"MPI_Init", Wrap::kRecorded, CommOp::kInit},
    {"MPI_Init_thread", Wrap::kRecorded, CommOp::kInit},
    {"MPI_Finalize", Wrap::kRecorded, CommOp::kFinalize},
    {"MPI_Comm_dup", Wrap::kRecorded, CommOp::kCommDup},
    {"MPI_Comm_split", Wrap::kRecorded, CommOp::kCommSplit},
    {"MPI_Comm_split_type", Wrap::kRecorded, CommOp::kCommSplitType},
    {"MPI_Comm_create", Wrap::kRecorded, CommOp::kCommCreate},
    {"MPI_Comm_free", Wrap::kNoted},
    // Collectives (wrappers_collectives.cpp).
    {"MPI_Barrier", Wrap::kRecorded, CommOp::kBarrier},
    {"MPI_Bcast", Wrap::kRecorded, CommOp::kBcast},
    {"MPI_Reduce", Wrap::kRecorded, CommOp::kReduce},
    {"MPI_Allreduce", Wrap::kRecorded, CommOp::kAllreduce},
    {"MPI_Scan", Wrap::kRecorded, CommOp::kScan},
    {"MPI_Exscan", Wrap::kRecorded, CommOp::kExscan},
    {"MPI_Gather", Wrap::kRecorded, CommOp::kGather},
    {"MPI_Gatherv", Wrap::kRecorded, CommOp::kGatherv},
    {"MPI_Scatter", Wrap::kRecorded, CommOp::kScatter},
    {"MPI_Scatterv", Wrap::kRecorded, CommOp::kScatterv},
    {"MPI_Allgather", Wrap::kRecorded, CommOp::kAllgather},
    {"MPI_Allgatherv", Wrap::kRecorded, CommOp::kAllgatherv},
    {"MPI_Alltoall", Wrap::kRecorded, CommOp::kAlltoall},
    {"MPI_Alltoallv", Wrap::kRecorded, CommOp::kAlltoallv},
    {"MPI_Reduce_scatter", Wrap::kRecorded, CommOp::kReduceScatter},
    {"MPI_Reduce_scatter_block", Wrap::kRecorded, CommOp::kReduceScatterBlock},
    {"MPI_Ibarrier", Wrap::kRecorded, CommOp::kIbarrier},
    {"MPI_Ibcast", Wrap::kRecorded, CommOp::kIbcast},
    {"MPI_Ireduce", Wrap::kRecorded, CommOp::kIreduce},
    {"MPI_Iallreduce", Wrap::kRecorded, CommOp::kIallreduce},
    {"MPI_Iallgather", Wrap::kRecorded, CommOp::kIallgather},
    {"MPI_Ialltoall", Wrap::kRecorded, CommOp::kIalltoall},
    // Point to point and the waits (wrappers_p2p.cpp).
    {"MPI_Send", Wrap::kRecorded, CommOp::kSend},
    {"MPI_Ssend", Wrap::kRecorded, CommOp::kSsend},
    {"MPI_Recv", Wrap::kRecorded, CommOp::kRecv},
    {"MPI_Sendrecv", Wrap::kRecorded, CommOp::kSendrecv},
    {"MPI_Isend", Wrap::kRecorded, CommOp::kIsend},
    {"MPI_Irecv", Wrap::kRecorded, CommOp::kIrecv},
    {"MPI_Wait", Wrap::kRecorded, CommOp::kWait},
    {"MPI_Waitall", Wrap::kRecorded, CommOp::kWaitall},
    {"MPI_Waitany", Wrap::kRecorded, CommOp::kWaitany},
    // Counted, not recorded (wrappers_counted.cpp): completion tests,
    // persistent starts, sessions, MPI-4's large-count functions.
    {"MPI_Test", Wrap::kCounted},
    {"MPI_Testall", Wrap::kCounted},
    {"MPI_Testany", Wrap::kCounted},
    {"MPI_Testsome", Wrap::kCounted},
    {"MPI_Waitsome", Wrap::kCounted},
    {"MPI_Start", Wrap::kCounted},
    {"MPI_Startall", Wrap::kCounted},
    {"MPI_Session_init", Wrap::kCounted},
    {"MPI_Send_c", Wrap::kCounted},
    {"MPI_Ssend_c", Wrap::kCounted},
    {"MPI_Recv_c", Wrap::kCounted},
    {"MPI_Sendrecv_c", Wrap::kCounted},
    {"MPI_Isend_c", Wrap::kCounted},
    {"MPI_Irecv_c", Wrap::kCounted},
    {"MPI_Bcast_c", Wrap::kCounted},
    {"MPI_Reduce_c", Wrap::kCounted},
    {"MPI_Allreduce_c", Wrap::kCounted},
    {"MPI_Gather_c", Wrap::kCounted},
    {"MPI_Gatherv_c", Wrap::kCounted},
    {"MPI_Scatter_c", Wrap::kCounted},
    {"MPI_Scatterv_c", Wrap::kCounted},
    {"MPI_Allgather_c", Wrap::kCounted},
    {"MPI_Allgatherv_c", Wrap::kCounted},
    {"MPI_Alltoall_c", Wrap::kCounted},
    {"MPI_Alltoallv_c", Wrap::kCounted},
    {"MPI_Reduce_scatter_c", Wrap::kCounted},
    {"MPI_Reduce_scatter_block_c", Wrap::kCounted},
    {"MPI_Scan_c", Wrap::kCounted},
    {"MPI_Exscan_c", Wrap::kCounted},
    {"MPI_Ibcast_c", Wrap::kCounted},
    {"MPI_Ireduce_c", Wrap::kCounted},
    {"MPI_Iallreduce_c", Wrap::kCounted},
    {"MPI_Iallgather_c", Wrap::kCounted},
    {"MPI_Ialltoall_c", Wrap::kCounted},
};
inline constexpr size_t kWrappedCount = std::size(kWrapped);

// The row of `name`; a name not in the table does not compile.
consteval size_t wrapped_row(std::string_view name) {
  for (size_t i = 0; i < kWrappedCount; ++i)
    if (kWrapped[i].name == name) return i;
  throw "an MPI wrapper without a row in kWrapped";
}

}  // namespace brickprof::agent::mpi
