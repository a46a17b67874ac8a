// Synthetic traces. generate_trace: realistic ones for benchmarks and scale
// tests: threads x layers x bricks x kernels on streams, with launch API
// times, event record/wait pairs between two streams, host copies and a
// stream synchronise per layer; as one rank of an MPI job, an MPI_Allreduce
// that ends each layer. generate_varied_trace: every kind of node and
// timing corner the analyses must handle, for property tests. Both
// deterministic for a given config.
#pragma once

#include <cstdint>

#include "trace/model/trace.h"

namespace brickprof {

// Small deterministic PRNG (xorshift64): times vary but every run is
// identical.
struct TraceRng {
  uint64_t s;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return range(0, 99) < percent; }
};

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

struct VariedConfig {
  uint64_t seed = 1;
  uint32_t nodes = 200;  // about this many (a few more to close what is open)
};

// A trace drawn from `seed`: nested scopes (layers, bricks, scopes, some
// of no length) on 1-4 threads, GPU work on 1-3 devices with streams of
// their own per thread, overlaps, gaps and equal timestamps, copies both
// ways (pageable, pinned, blocking, of no length, over a few host ranges),
// memsets, host syncs of every kind (stream, context, device, event),
// event records and stream waits, CUDA graph replays (kernel by kernel, and
// whole), GPU work launched outside every scope, NVTX ranges, sequence and
// depends_on edges; some traces recorded in capture windows, some without
// API times (as hand-made traces are: no event records or stream waits
// either), some with every thread's work under one scope named "root". Causally consistent as a
// recorded trace is: GPU work starts after its launch and after the work before it on its stream,
// a host wait returns after the work it waits for, an edge's destination
// starts after its source ended, no two API calls start at one time.
Trace generate_varied_trace(const VariedConfig& config);

}  // namespace brickprof
