// Names and properties of the recorded MPI operations, and the clock line
// (see comm.h).
#include "trace/model/comm.h"

#include <array>
#include <cmath>

namespace brickprof {
namespace {

struct OpInfo {
  std::string_view name;      // JSON
  std::string_view function;  // node name
  WaitPattern pattern;
  bool collective;
};

constexpr std::array<OpInfo, 38> kOps = {{
    {"init", "MPI_Init", WaitPattern::kNone, false},
    {"finalize", "MPI_Finalize", WaitPattern::kNone, false},
    {"clock_sync", "MPI clock sync", WaitPattern::kNone, false},
    {"barrier", "MPI_Barrier", WaitPattern::kAllToAll, true},
    {"bcast", "MPI_Bcast", WaitPattern::kOneToAll, true},
    {"reduce", "MPI_Reduce", WaitPattern::kAllToOne, true},
    {"allreduce", "MPI_Allreduce", WaitPattern::kAllToAll, true},
    {"gather", "MPI_Gather", WaitPattern::kAllToOne, true},
    {"gatherv", "MPI_Gatherv", WaitPattern::kAllToOne, true},
    {"scatter", "MPI_Scatter", WaitPattern::kOneToAll, true},
    {"scatterv", "MPI_Scatterv", WaitPattern::kOneToAll, true},
    {"allgather", "MPI_Allgather", WaitPattern::kAllToAll, true},
    {"allgatherv", "MPI_Allgatherv", WaitPattern::kAllToAll, true},
    {"alltoall", "MPI_Alltoall", WaitPattern::kAllToAll, true},
    {"alltoallv", "MPI_Alltoallv", WaitPattern::kAllToAll, true},
    {"reduce_scatter", "MPI_Reduce_scatter", WaitPattern::kAllToAll, true},
    {"reduce_scatter_block", "MPI_Reduce_scatter_block", WaitPattern::kAllToAll, true},
    {"scan", "MPI_Scan", WaitPattern::kPrefix, true},
    {"exscan", "MPI_Exscan", WaitPattern::kPrefix, true},
    // Non-blocking: the call only starts the operation; waiting happens in
    // MPI_Wait*, so no rank waits inside the call itself.
    {"ibarrier", "MPI_Ibarrier", WaitPattern::kNone, true},
    {"ibcast", "MPI_Ibcast", WaitPattern::kNone, true},
    {"ireduce", "MPI_Ireduce", WaitPattern::kNone, true},
    {"iallreduce", "MPI_Iallreduce", WaitPattern::kNone, true},
    {"iallgather", "MPI_Iallgather", WaitPattern::kNone, true},
    {"ialltoall", "MPI_Ialltoall", WaitPattern::kNone, true},
    // Communicator constructors are collective over the parent.
    {"comm_dup", "MPI_Comm_dup", WaitPattern::kAllToAll, true},
    {"comm_split", "MPI_Comm_split", WaitPattern::kAllToAll, true},
    {"comm_split_type", "MPI_Comm_split_type", WaitPattern::kAllToAll, true},
    {"comm_create", "MPI_Comm_create", WaitPattern::kAllToAll, true},
    {"send", "MPI_Send", WaitPattern::kNone, false},
    {"ssend", "MPI_Ssend", WaitPattern::kNone, false},
    {"recv", "MPI_Recv", WaitPattern::kNone, false},
    {"sendrecv", "MPI_Sendrecv", WaitPattern::kNone, false},
    {"isend", "MPI_Isend", WaitPattern::kNone, false},
    {"irecv", "MPI_Irecv", WaitPattern::kNone, false},
    {"wait", "MPI_Wait", WaitPattern::kNone, false},
    {"waitall", "MPI_Waitall", WaitPattern::kNone, false},
    {"waitany", "MPI_Waitany", WaitPattern::kNone, false},
}};
static_assert(kOps.size() == static_cast<size_t>(CommOp::kWaitany) + 1);

const OpInfo& info(CommOp op) { return kOps[static_cast<size_t>(op)]; }

}  // namespace

std::string_view to_string(CommOp op) { return info(op).name; }
std::string_view mpi_function_name(CommOp op) { return info(op).function; }
bool is_collective(CommOp op) { return info(op).collective; }
WaitPattern wait_pattern(CommOp op) { return info(op).pattern; }

bool parse(std::string_view text, CommOp* out) {
  for (size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == text) {
      *out = static_cast<CommOp>(i);
      return true;
    }
  }
  return false;
}

double ClockSync::offset_at(int64_t local_ns) const {
  if (samples.empty()) return 0;
  const Sample& a = samples.front();
  const Sample& b = samples.back();
  if (samples.size() == 1 || b.local_ns == a.local_ns) return static_cast<double>(a.offset_ns);
  // Offsets that differ by less than their errors (half a round trip each)
  // measure no drift: the better sample's offset holds throughout.
  const int64_t apart =
      a.offset_ns > b.offset_ns ? a.offset_ns - b.offset_ns : b.offset_ns - a.offset_ns;
  if (2 * apart <= a.rtt_ns + b.rtt_ns)
    return static_cast<double>(a.rtt_ns <= b.rtt_ns ? a.offset_ns : b.offset_ns);
  const double drift =
      static_cast<double>(b.offset_ns - a.offset_ns) / static_cast<double>(b.local_ns - a.local_ns);
  return static_cast<double>(a.offset_ns) + drift * static_cast<double>(local_ns - a.local_ns);
}

int64_t ClockSync::aligned(int64_t local_ns) const {
  if (samples.empty() || local_ns == 0) return local_ns;
  const double t = static_cast<double>(local_ns) - offset_at(local_ns);
  return t <= 0 ? 0 : t >= 9.2e18 ? INT64_MAX : std::llround(t);
}

}  // namespace brickprof
