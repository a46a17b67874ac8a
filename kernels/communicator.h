// How a tensor-parallel rank talks to the others: its place in the job, an
// in-place sum of a tensor across ranks, and a broadcast of token ids. MPI
// on the CPU backends, from a plugin linked against MPI (kernels/mpi/), so
// bricklayer itself needs no MPI library unless --tp asks for one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace bricklayer {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void all_reduce_sum(float* data, int64_t count) = 0;
  virtual void broadcast(int32_t* data, int64_t count, int root) = 0;
};

// Loads libbricklayer_mpi.so from beside the executable and initialises
// MPI (finalised when the communicator is destroyed). Null, with one line in
// `error`, when the plugin is missing (built without MPI) or MPI fails.
std::unique_ptr<Communicator> open_mpi_communicator(std::string* error);

}  // namespace bricklayer
