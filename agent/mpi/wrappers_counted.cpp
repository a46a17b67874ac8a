// The MPI functions the agent counts instead of recording (kWrapped's
// counted rows, missed.h). Each passes its arguments through untouched.
// Every MPI argument is a pointer, a handle or an integer (none is floating
// point), so on x86-64 and AArch64 each travels in one integer register or
// one 8-byte stack slot: a wrapper of twelve machine words (the most any of
// these takes) forwards any of them as it came; slots past the caller's own
// arguments are read from its frame and ignored by the callee.
#include <cstdint>

#include "agent/mpi/forward.h"
#include "agent/mpi/missed.h"

namespace brickprof::agent::mpi {
namespace {

using Word = uintptr_t;
using PassThrough = int(Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word, Word);

template <MpiName kName>
int count_and_pass(Word a0, Word a1, Word a2, Word a3, Word a4, Word a5, Word a6, Word a7, Word a8,
                   Word a9, Word a10, Word a11) {
  constexpr size_t kRow = wrapped_row(kName.view());
  static_assert(kWrapped[kRow].how == Wrap::kCounted, "a counted wrapper's row says kCounted");
  static Pmpi<PassThrough> pmpi(kPmpiName<kName>.data());
  auto* f = pmpi.get();
  if (!f) return missing_pmpi(kName.text);
  count_call(kRow);
  return f(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);
}

}  // namespace
}  // namespace brickprof::agent::mpi

#define BRICKPROF_MPI_COUNTED(name)                                                            \
  BRICKPROF_MPI_EXPORT int name(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3,        \
                                uintptr_t a4, uintptr_t a5, uintptr_t a6, uintptr_t a7,        \
                                uintptr_t a8, uintptr_t a9, uintptr_t a10, uintptr_t a11) {    \
    return brickprof::agent::mpi::count_and_pass<#name>(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                                                        a10, a11);                             \
  }

BRICKPROF_MPI_COUNTED(MPI_Test)
BRICKPROF_MPI_COUNTED(MPI_Testall)
BRICKPROF_MPI_COUNTED(MPI_Testany)
BRICKPROF_MPI_COUNTED(MPI_Testsome)
BRICKPROF_MPI_COUNTED(MPI_Waitsome)
BRICKPROF_MPI_COUNTED(MPI_Start)
BRICKPROF_MPI_COUNTED(MPI_Startall)
BRICKPROF_MPI_COUNTED(MPI_Session_init)
BRICKPROF_MPI_COUNTED(MPI_Send_c)
BRICKPROF_MPI_COUNTED(MPI_Ssend_c)
BRICKPROF_MPI_COUNTED(MPI_Recv_c)
BRICKPROF_MPI_COUNTED(MPI_Sendrecv_c)
BRICKPROF_MPI_COUNTED(MPI_Isend_c)
BRICKPROF_MPI_COUNTED(MPI_Irecv_c)
BRICKPROF_MPI_COUNTED(MPI_Bcast_c)
BRICKPROF_MPI_COUNTED(MPI_Reduce_c)
BRICKPROF_MPI_COUNTED(MPI_Allreduce_c)
BRICKPROF_MPI_COUNTED(MPI_Gather_c)
BRICKPROF_MPI_COUNTED(MPI_Gatherv_c)
BRICKPROF_MPI_COUNTED(MPI_Scatter_c)
BRICKPROF_MPI_COUNTED(MPI_Scatterv_c)
BRICKPROF_MPI_COUNTED(MPI_Allgather_c)
BRICKPROF_MPI_COUNTED(MPI_Allgatherv_c)
BRICKPROF_MPI_COUNTED(MPI_Alltoall_c)
BRICKPROF_MPI_COUNTED(MPI_Alltoallv_c)
BRICKPROF_MPI_COUNTED(MPI_Reduce_scatter_c)
BRICKPROF_MPI_COUNTED(MPI_Reduce_scatter_block_c)
BRICKPROF_MPI_COUNTED(MPI_Scan_c)
BRICKPROF_MPI_COUNTED(MPI_Exscan_c)
BRICKPROF_MPI_COUNTED(MPI_Ibcast_c)
BRICKPROF_MPI_COUNTED(MPI_Ireduce_c)
BRICKPROF_MPI_COUNTED(MPI_Iallreduce_c)
BRICKPROF_MPI_COUNTED(MPI_Iallgather_c)
BRICKPROF_MPI_COUNTED(MPI_Ialltoall_c)
