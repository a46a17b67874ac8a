// The memory bricklayer holds, by what it is for: weights, activations and
// the KV cache. Each backend reports the tensors it hands out to brickprof as
// the program's pools (brickprof_mem_alloc/free), so a profile shows what the
// program uses beside what it reserved from the driver; the byte figures here
// are added up from the graph's tensors alone, so a profile can be checked
// against them (bricklayer prints them).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/graph.h"

namespace bricklayer {

enum class Pool : uint8_t { Weights, Activations, KvCache };
constexpr int kPoolCount = 3;

Pool pool_of(TensorKind kind);  // token ids count as activations
// The pool's name in a profile: "weights", "activations", "kv_cache".
const char* pool_name(Pool pool);

// Bytes of the graph's tensors in each pool (indexed by Pool).
struct PoolBytes {
  int64_t bytes[kPoolCount] = {};
  int64_t operator[](Pool p) const { return bytes[static_cast<int>(p)]; }
};
PoolBytes pool_bytes(const Graph& g);

// The tensors a backend handed out, each reported when added (its bytes,
// in its pool) and reported freed when this is destroyed; no-ops without
// the agent.
class ReportedTensors {
 public:
  ReportedTensors() = default;
  ReportedTensors(const ReportedTensors&) = delete;
  ReportedTensors& operator=(const ReportedTensors&) = delete;
  ~ReportedTensors() { clear(); }

  void add(const Tensor& t, const void* ptr);
  // Reports every tensor freed (before the memory under them goes).
  void clear();

 private:
  std::vector<std::pair<const void*, Pool>> live_;
};

// The element type and shapes of node `n` as this step runs it, attached
// to the innermost open scope (its brick): inputs and output as
// [rows, cols] (a norm weight as [cols]; activations with this step's
// rows), and the dtype of the weight it reads ("q4_k", "f32"), else "f32".
void report_node_shapes(const Graph& g, const Node& n);

}  // namespace bricklayer
