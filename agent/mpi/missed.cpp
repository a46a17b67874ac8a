// What the MPI wrappers do not record, for the trace (see missed.h).
#include "agent/mpi/missed.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "agent/mpi/abi.h"

namespace brickprof::agent::mpi {
namespace {

// The Fortran bindings' libraries of Open MPI (mpif.h, use mpi, use
// mpi_f08) and of MPICH and its kin.
constexpr const char* kFortranBindings[] = {"libmpi_mpifh", "libmpi_usempi", "libmpifort",
                                            "libmpichf90"};

int find_fortran(dl_phdr_info* info, size_t, void* out) {
  const char* name = info->dlpi_name;
  if (!name) return 0;
  for (const char* bindings : kFortranBindings) {
    if (std::strstr(name, bindings)) {
      *static_cast<std::string*>(out) = name;
      return 1;
    }
  }
  return 0;
}

}  // namespace

std::array<std::atomic<uint64_t>, kWrappedCount> g_counted_calls{};

std::vector<std::string> missed_calls(bool init_seen) {
  std::vector<std::string> lines;
  std::string counts;
  for (size_t row = 0; row < kWrappedCount; ++row) {
    const uint64_t calls = g_counted_calls[row].load(std::memory_order_relaxed);
    if (calls != 0)
      counts += (counts.empty() ? "" : ", ") + std::string(kWrapped[row].name) + " " +
                std::to_string(calls);
  }
  if (!counts.empty())
    lines.push_back("MPI calls seen but not recorded (not in the tree, the critical path or "
                    "the collectives): " + counts);
  // Only in a process with an MPI library: a quick miss everywhere else.
  if (!dlsym(RTLD_DEFAULT, "PMPI_Init") && !init_seen) return lines;
  std::string fortran;
  dl_iterate_phdr(find_fortran, &fortran);
  if (!fortran.empty())
    lines.push_back("MPI's Fortran bindings are loaded (" + fortran +
                    "): they call PMPI_ directly, so MPI calls made from Fortran are not "
                    "recorded");
  using InitializedFn = int(int*);
  static Pmpi<InitializedFn> pmpi_initialized("PMPI_Initialized");
  int initialized = 0;
  if (!init_seen) {
    auto* f = pmpi_initialized.get();
    if (f && f(&initialized) == kSuccess && initialized)
      lines.push_back("MPI was initialised without the agent seeing MPI_Init (from Fortran, or "
                      "with MPI sessions): the rank, the communicators and the MPI calls are "
                      "not recorded");
  }
  return lines;
}

}  // namespace brickprof::agent::mpi
