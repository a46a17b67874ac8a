// The MPI communicator plugin (libbricklayer_mpi.so): bricklayer's
// Communicator over MPI_COMM_WORLD. Loaded by open_mpi_communicator.
#include <mpi.h>

#include <cstdio>
#include <string>

#include "kernels/communicator.h"

namespace {

class MpiCommunicator final : public bricklayer::Communicator {
 public:
  MpiCommunicator() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiCommunicator() override { MPI_Finalize(); }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void all_reduce_sum(float* data, int64_t count) override {
    MPI_Allreduce(MPI_IN_PLACE, data, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  void broadcast(int32_t* data, int64_t count, int root) override {
    MPI_Bcast(data, static_cast<int>(count), MPI_INT32_T, root, MPI_COMM_WORLD);
  }

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

// The plugin's one entry point: null, with the reason in `error`, when MPI
// cannot start.
extern "C" __attribute__((visibility("default"))) bricklayer::Communicator* bricklayer_open_mpi(
    char* error, size_t error_size) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    std::snprintf(error, error_size, "MPI_Init failed");
    return nullptr;
  }
  return new MpiCommunicator();
}
