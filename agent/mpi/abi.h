// The two MPI ABIs the agent serves without linking an MPI library: Open
// MPI's (handles are pointers to library objects) and MPICH's (handles are
// ints; also Intel MPI, MVAPICH, Cray MPICH). Which one is loaded is found
// at run time, and the PMPI_ entry points are looked up once each.
#pragma once

#include <cstdint>

namespace brickprof::agent::mpi {

// An MPI handle (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request) as the
// wrappers receive and forward it: pointer-sized. On x86-64 and AArch64 an
// int argument travels in a 64-bit register or an 8-byte stack slot, so an
// MPICH int handle passes through unchanged; only its low 32 bits mean
// anything (handle_bits).
using Handle = uintptr_t;

struct Abi {
  bool known = false;        // an MPI library was found
  bool int_handles = false;  // MPICH family
  Handle comm_world = 0;
  Handle comm_null = 0;
  Handle byte_type = 0;
  uintptr_t in_place = 0;       // MPI_IN_PLACE
  uintptr_t status_ignore = 0;  // MPI_STATUS_IGNORE (and MPI_STATUSES_IGNORE)
  int any_source = -1;
  int proc_null = -2;
  int root = -4;  // MPI_ROOT: the root's own root argument on an intercommunicator
  int error_intern = 17;         // MPI_ERR_INTERN, returned when no PMPI_ is found
  int status_source_offset = 0;  // byte offsets of MPI_SOURCE and MPI_TAG in MPI_Status
  int status_tag_offset = 4;
  int status_bytes = 24;

  // A handle as a key: MPICH's low 32 bits, Open MPI's whole pointer.
  uint64_t handle_bits(Handle h) const {
    return int_handles ? static_cast<uint32_t>(h) : static_cast<uint64_t>(h);
  }
};

// Detected on first use (thread-safe), once the program has called into MPI.
const Abi& abi();

// PMPI_<name> of the MPI library in the process, or nullptr: the next
// definition after the agent (RTLD_NEXT), else any loaded object that has it
// (an MPI library dlopen'ed privately, as a Python extension's is).
void* find_pmpi(const char* name);

// A PMPI entry point, looked up on first call and then kept: a wrapper pays
// one load per call, a program that never calls MPI nothing.
template <typename Fn>
class Pmpi {
 public:
  explicit constexpr Pmpi(const char* name) : name_(name) {}
  Fn* get() {
    void* f = fn_;
    if (!f) {
      f = find_pmpi(name_);
      fn_ = f;
    }
    return reinterpret_cast<Fn*>(f);
  }

 private:
  const char* name_;
  void* volatile fn_ = nullptr;  // idempotent: a race looks it up twice
};

inline constexpr int kSuccess = 0;  // MPI_SUCCESS in both ABIs

// The size of a communicator and this rank in it, which the agent asks for
// itself (a call's peers, the clock alignment).
using CommIntFn = int(Handle, int*);
inline Pmpi<CommIntFn> pmpi_comm_size("PMPI_Comm_size");
inline Pmpi<CommIntFn> pmpi_comm_rank("PMPI_Comm_rank");

}  // namespace brickprof::agent::mpi
