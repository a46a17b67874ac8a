// What the exported MPI_ wrappers share (wrappers_*.cpp): how they are
// exported, the one body of a recorded call (forward), and what one returns
// when no MPI library provides its PMPI_. A wrapper's row in kWrapped
// (wrapped.h) gives its operation; a wrapper without a row does not compile.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/mpi/abi.h"
#include "agent/mpi/calls.h"
#include "agent/mpi/wrapped.h"

// The agent is built with hidden visibility; these are its MPI interface
// (MPI_* in agent/exports.map).
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

// A wrapper's name as a template argument: forward<"MPI_Bcast">.
template <size_t N>
struct MpiName {
  char text[N];
  consteval MpiName(const char (&s)[N]) { std::copy_n(s, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

// "PMPI_Bcast" for "MPI_Bcast", built at compile time.
template <MpiName kName>
inline constexpr auto kPmpiName = [] {
  std::array<char, sizeof kName.text + 1> pmpi{'P'};
  std::copy_n(kName.text, sizeof kName.text, pmpi.begin() + 1);
  return pmpi;
}();

// A recorded call: PMPI_<name>(args...) inside the call's scope (calls.h);
// `fill` runs only when the call succeeded and is logged. Args are deduced
// from the wrapper's own parameters, which are PMPI's, so the signature is
// exact.
template <MpiName kName, typename Fill, typename... Args>
int forward(Handle comm, Fill fill, Args... args) {
  constexpr WrappedCall kRow = kWrapped[wrapped_row(kName.view())];
  static_assert(kRow.how == Wrap::kRecorded, "forward<> is for rows that are recorded");
  static Pmpi<int(Args...)> pmpi(kPmpiName<kName>.data());
  auto* f = pmpi.get();
  if (!f) return missing_pmpi(kName.text);
  Call call(kRow.op, comm);
  const int rc = f(args...);
  if (call.done(rc)) fill(call);
  return rc;
}

// The fill of a call whose record is its operation and communicator alone.
inline constexpr auto kNoFill = [](Call&) {};

}  // namespace brickprof::agent::mpi
