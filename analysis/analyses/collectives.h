// Collective operations matched across ranks: every member of a
// communicator numbers its collectives alike (CommCall::seq), so the calls
// with the same communicator key and number are one instance. Per instance:
// when each rank arrived, the arrival skew, the last rank to arrive (the
// straggler) and how long each rank waited inside the call for the others,
// by the operation's wait pattern (everyone for the last, receivers for the
// root, the root for the last sender, each rank for those before it).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/analyses/ranks.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

struct CollectiveCall {
  uint32_t node = kNoNode;
  uint32_t rank = kNoRank;  // RankIndex::ranks
  int32_t comm_rank = -1;   // the rank within the communicator
  int64_t arrival_ns = 0;   // the call's start
  int64_t end_ns = 0;
  int64_t wait_ns = 0;  // inside the call, waiting for other ranks
};

struct CollectiveInstance {
  CommOp op = CommOp::kBarrier;
  uint64_t seq = 0;
  uint32_t comm = 0;  // Trace::communicators entry of the first call
  int32_t comm_size = 0;
  int32_t root = -1;        // rooted ops: the root's rank in the communicator
  uint64_t bytes = 0;       // the first call's (per rank)
  uint32_t first_call = 0;  // calls[first_call, first_call + call_count)
  uint32_t call_count = 0;
  int64_t first_arrival_ns = 0;
  int64_t last_arrival_ns = 0;
  int64_t end_ns = 0;            // the last call's end
  uint32_t straggler = kNoRank;  // the rank that arrived last
  int64_t wait_ns = 0;           // all ranks' waits summed

  int64_t skew_ns() const { return last_arrival_ns - first_arrival_ns; }
  bool complete() const { return static_cast<int32_t>(call_count) >= comm_size; }
};

struct CollectiveOpTotals {
  CommOp op = CommOp::kBarrier;
  uint64_t instances = 0;
  uint64_t bytes = 0;   // summed over instances (per rank)
  int64_t skew_ns = 0;  // summed
  int64_t max_skew_ns = 0;
  int64_t wait_ns = 0;  // summed over instances and ranks
};

struct RankWaits {
  uint32_t rank = kNoRank;
  uint64_t calls = 0;
  int64_t call_ns = 0;         // time inside its collectives
  int64_t wait_ns = 0;         // of which waiting for others
  uint64_t last_arrivals = 0;  // instances it was the straggler of
};

struct CollectiveReport {
  RankIndex ranks;
  std::vector<CollectiveInstance> instances;  // by first arrival
  std::vector<CollectiveCall> calls;          // grouped by instance
  std::vector<CollectiveOpTotals> ops;        // by op
  std::vector<RankWaits> per_rank;            // by rank index
  uint64_t incomplete = 0;  // instances with fewer calls than the communicator has ranks
};

// Linear in the calls (one hash lookup each) plus a sort of the instances.
CollectiveReport analyze_collectives(const Trace& trace);

// The figures of matched instances: given `ranks`, each instance's op,
// seq, comm_size, root, bytes and its calls (rank, comm_rank, arrival,
// end) grouped as first_call/call_count say, fills the arrivals, the
// straggler, the waits, the per-op and per-rank totals, and sorts the
// instances by first arrival. The job summary's collectives
// (job_figures.h) are matched elsewhere and finished here, so their
// figures are this view's.
void finish_collectives(CollectiveReport& r);

// The JSON both report --collectives and the job summary write: the per-op
// totals (`"ops": [...]`), and an instance's figures from its seq to
// whether it is complete (its op, communicator and calls are the caller's).
void write_collective_ops_json(JsonWriter& w, const std::vector<CollectiveOpTotals>& ops);
void write_instance_figures_json(JsonWriter& w, const CollectiveInstance& inst);

}  // namespace brickprof
