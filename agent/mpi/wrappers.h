// Shared by the exported MPI_ wrappers (wrappers_*.cpp): how they are
// exported, and what one returns when no MPI library provides its PMPI_.
#pragma once

#include "agent/mpi/abi.h"
#include "agent/mpi/calls.h"

// The agent is built with hidden visibility; these are its MPI interface
// (listed in agent/exports.map).
#define BRICKPROF_MPI_EXPORT extern "C" __attribute__((visibility("default")))

namespace brickprof::agent::mpi {

// MPI_ERR_INTERN, after one warning naming the function: reached only by a
// program that calls MPI_ functions with no MPI library loaded.
int missing_pmpi(const char* function);

// The sum of counts[0..n) (a v-collective's counts), 0 for none.
int64_t sum_of(const int* counts, int n);

// Whether a buffer argument is MPI_IN_PLACE.
inline bool in_place(const void* buffer) {
  return reinterpret_cast<uintptr_t>(buffer) == abi().in_place;
}

}  // namespace brickprof::agent::mpi
