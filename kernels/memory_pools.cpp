// Pools and shapes as bricklayer reports them (memory_pools.h).
#include "kernels/memory_pools.h"

#include <brickprof/brickprof.h>

namespace bricklayer {

Pool pool_of(TensorKind kind) {
  switch (kind) {
    case TensorKind::Weight:
    case TensorKind::Vector: return Pool::Weights;
    case TensorKind::KvCache: return Pool::KvCache;
    case TensorKind::Activation:
    case TensorKind::Tokens: return Pool::Activations;
  }
  return Pool::Activations;
}

const char* pool_name(Pool pool) {
  switch (pool) {
    case Pool::Weights: return "weights";
    case Pool::Activations: return "activations";
    case Pool::KvCache: return "kv_cache";
  }
  return "?";
}

PoolBytes pool_bytes(const Graph& g) {
  PoolBytes b;
  for (const Tensor& t : g.tensors) b.bytes[static_cast<int>(pool_of(t.kind))] += t.bytes();
  return b;
}

void ReportedTensors::add(const Tensor& t, const void* ptr) {
  const Pool pool = pool_of(t.kind);
  brickprof_mem_alloc(ptr, static_cast<uint64_t>(t.bytes()), pool_name(pool));
  live_.emplace_back(ptr, pool);
}

void ReportedTensors::clear() {
  for (const auto& [ptr, pool] : live_) brickprof_mem_free(ptr, pool_name(pool));
  live_.clear();
}

namespace {

// A tensor's dims as node `n` of this step uses it.
uint32_t dims_of(const Graph& g, const Tensor& t, int64_t* out) {
  switch (t.kind) {
    case TensorKind::Vector: out[0] = t.cols; return 1;
    case TensorKind::Activation:
    case TensorKind::Tokens:
      out[0] = g.rows();
      out[1] = t.cols;
      return 2;
    case TensorKind::Weight:
    case TensorKind::KvCache:
      out[0] = t.rows;
      out[1] = t.cols;
      return 2;
  }
  return 0;
}

}  // namespace

void report_node_shapes(const Graph& g, const Node& n) {
  int64_t dims[6], out[2];
  uint32_t ranks[3];
  uint32_t inputs = 0, used = 0;
  const char* dtype = "f32";
  for (int id : n.in) {
    if (id < 0) continue;
    const Tensor& t = g.tensors[static_cast<size_t>(id)];
    if (t.kind == TensorKind::Weight && t.type == WeightType::Q4K) dtype = "q4_k";
    ranks[inputs] = dims_of(g, t, dims + used);
    used += ranks[inputs++];
  }
  const uint32_t out_rank = dims_of(g, g.tensors[static_cast<size_t>(n.out)], out);
  brickprof_set_shapes(dtype, dims, ranks, inputs, out, out_rank);
}

}  // namespace bricklayer
