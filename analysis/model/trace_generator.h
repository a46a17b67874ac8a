// Synthetic but realistic traces for benchmarks and scale tests: threads x
// layers x bricks x kernels on streams, with launch API times, event
// record/wait pairs between two streams, host copies and a stream
// synchronise per layer; as one rank of an MPI job, an MPI_Allreduce that
// ends each layer. Deterministic for a given config.
#pragma once

#include <cstdint>

#include "analysis/model/trace.h"

namespace brickprof {

struct GeneratorConfig {
  uint64_t target_events = 10'000;  // nodes, approximately (whole layers)
  uint32_t threads = 2;             // CPU threads, each with its own streams
  uint32_t bricks_per_layer = 9;
  uint32_t kernels_per_brick = 2;
  uint32_t seed = 1;
  // world_size > 0: the trace is rank `rank` of that many, and each layer
  // ends in an all-reduce on MPI_COMM_WORLD (numbered by layer, so the
  // ranks' calls match).
  uint32_t rank = 0;
  uint32_t world_size = 0;
};

// Nodes per generated layer for `config` (to size runs).
uint64_t events_per_layer(const GeneratorConfig& config);
Trace generate_trace(const GeneratorConfig& config);

}  // namespace brickprof
