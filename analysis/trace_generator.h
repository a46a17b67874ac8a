// Synthetic but realistic traces for benchmarks and scale tests: threads x
// layers x bricks x kernels on streams, with launch API times, event
// record/wait pairs between two streams, host copies and a stream
// synchronise per layer. Deterministic for a given config.
#pragma once

#include <cstdint>

#include "analysis/trace.h"

namespace brickprof {

struct GeneratorConfig {
  uint64_t target_events = 10'000;  // nodes, approximately (whole layers)
  uint32_t threads = 2;             // CPU threads, each with its own streams
  uint32_t bricks_per_layer = 9;
  uint32_t kernels_per_brick = 2;
  uint32_t seed = 1;
};

// Nodes per generated layer for `config` (to size runs).
uint64_t events_per_layer(const GeneratorConfig& config);
Trace generate_trace(const GeneratorConfig& config);

}  // namespace brickprof
