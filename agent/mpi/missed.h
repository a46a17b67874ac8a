// MPI calls the agent sees but does not record, and ways into MPI it does
// not see at all, so that the trace says where its MPI picture has holes:
// the completion tests (MPI_Test*), MPI_Waitsome, persistent requests
// (MPI_Start*), MPI-4's large-count functions (..._c), MPI sessions, and
// the Fortran bindings, which call PMPI_ directly.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace brickprof::agent::mpi {

// One function the agent counts instead of recording: a static of its
// wrapper, listed on its first call.
class Counted {
 public:
  explicit Counted(const char* function);
  void add() { calls_.fetch_add(1, std::memory_order_relaxed); }

  const char* function() const { return function_; }
  uint64_t calls() const { return calls_.load(std::memory_order_relaxed); }
  const Counted* next() const { return next_; }

 private:
  const char* function_;
  std::atomic<uint64_t> calls_{0};
  const Counted* next_ = nullptr;
};

// The trace's lines about them; `init_seen`: the program's MPI_Init came
// through the agent.
std::vector<std::string> missed_calls(bool init_seen);

}  // namespace brickprof::agent::mpi
