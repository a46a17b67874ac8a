// The dispatcher interface: one method per op, one kernel per call, per backend.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/communicator.h"
#include "kernels/graph.h"

namespace bricklayer {

// --repeat-brick: every op of one brick dispatched `times` times per call,
// a slow-down made of the brick's own work (times 1: none).
struct BrickRepeat {
  Brick brick = Brick::Embedding;
  int times = 1;
};

struct OutputChecks;  // output_checks.h

// Values that change from step to step; everything else is fixed per graph.
struct Step {
  int pos = 0;                       // tokens each sequence already holds
  const int32_t* tokens = nullptr;   // rows() ids, sequence-major
  int64_t layer_delay_ns = 0;        // --test-slow-us: a busy wait in each layer's first brick
  BrickRepeat repeat = {};           // --repeat-brick
  const OutputChecks* checks = nullptr;  // --checksums, --fault; null: none
};

class Dispatcher {
 public:
  virtual ~Dispatcher() = default;
  virtual std::string name() const = 0;

  // Allocates the graph's tensors (once per tensor id) and uploads weights.
  virtual void prepare(const Graph& g) = 0;
  // Makes the step's token ids and position visible to the kernels.
  virtual void begin_step(const Graph& g, const Step& s) = 0;
  // Waits until the step's kernels are done.
  virtual void end_step(const Graph& g) = 0;
  // Copies `count` floats of a tensor's first rows to host memory.
  virtual void read(int tensor, float* dst, int64_t count) = 0;
  // --checksums and --fault (output_checks.h): `count` floats from element
  // `offset` of a tensor to host memory and back, after the work issued so far.
  virtual void read_at(int tensor, int64_t offset, float* dst, int64_t count) = 0;
  virtual void write_at(int tensor, int64_t offset, const float* src, int64_t count) = 0;

  virtual void get_rows(const Graph& g, const Node& n) = 0;
  virtual void mul_mat(const Graph& g, const Node& n) = 0;
  virtual void rms_norm(const Graph& g, const Node& n) = 0;
  virtual void add(const Graph& g, const Node& n) = 0;
  virtual void rope(const Graph& g, const Node& n) = 0;
  virtual void attention(const Graph& g, const Node& n) = 0;  // Op::SoftMax
  virtual void copy(const Graph& g, const Node& n) = 0;       // KV-cache write
  virtual void mul(const Graph& g, const Node& n) = 0;
  virtual void silu(const Graph& g, const Node& n) = 0;
  // Tensor parallelism: sums the node's tensor across ranks through the
  // communicator. CPU backends only: the CUDA one's would be NCCL's
  // (kernels/README.md), which this build does not have.
  virtual void all_reduce(const Graph&, const Node&) {
    throw std::invalid_argument("backend " + name() + " cannot run --tp (CPU backends only)");
  }
  void set_communicator(Communicator* comm) { comm_ = comm; }

  // Graph capture (CUDA graphs); a backend without it runs every step eagerly.
  virtual bool can_capture() const { return false; }
  virtual void begin_capture() {}
  virtual void end_capture() {}
  virtual bool captured() const { return false; }
  // Replays the captured step with new step values.
  virtual void replay(const Graph&, const Step&) {}

  // Kernel launches issued so far (eager launches plus graph launches).
  int64_t kernel_launches() const { return kernel_launches_; }
  int64_t graph_launches() const { return graph_launches_; }
  // Device memory taken from a driver so far (every cuMemAlloc's bytes,
  // summed; 0 on the CPU), and in how many calls.
  int64_t driver_bytes() const { return driver_bytes_; }
  int64_t driver_allocations() const { return driver_allocations_; }

 protected:
  int64_t kernel_launches_ = 0;
  int64_t graph_launches_ = 0;
  int64_t driver_bytes_ = 0;
  int64_t driver_allocations_ = 0;
  Communicator* comm_ = nullptr;
};

}  // namespace bricklayer
