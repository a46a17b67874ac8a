// GPU records attributed to the scopes that launched them, in place, while
// the exit write's first pass reads each thread's CUDA calls and graph node
// creations. Instead of a map from every correlation id to its launch point
// (as large as the calls themselves), the staged records are indexed by
// correlation and by graph node, and each call writes its scope into the
// records it launched. The outcome is that of the map-based oracle the
// tests compare against (tests/agent/support/replay_oracle.h): the last
// call seen with an id wins, a graph replay goes under the scope that
// captured its node, and records whose launch was not recorded are left
// out when only capture windows were recorded.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "agent/gpu_source.h"
#include "agent/recorder/staged_records.h"

namespace brickprof::agent {

class GpuAttribution {
 public:
  // `dump` may be null: no GPU records.
  explicit GpuAttribution(GpuDump* dump);

  void launch(uint64_t correlation, uint32_t scope, uint32_t tid, int64_t api_start_ns,
              int64_t api_end_ns, uint32_t python_stack);
  void graph_node(uint64_t graph_node_id, uint32_t scope);
  // After every thread was read: each record's parent and addresses; the
  // kept ones are numbered from `first_id` in staged order.
  void finish(uint32_t first_id);

  uint64_t left_out() const { return left_out_; }  // launched outside the windows
  uint32_t count() const { return count_; }        // records kept
  size_t staged() const { return records_ ? records_->size() : 0; }
  StagedRecord& record(size_t index) { return (*records_)[index]; }
  std::string_view name(const StagedRecord& r) const { return records_->name(r); }
  // Kept records by (parent, start, id): each scope's GPU work together and
  // in the order the trace's children are, the orphans (no parent) last.
  const std::vector<uint32_t>& by_parent() const { return by_parent_; }

 private:
  GpuDump* dump_;
  StagedRecords* records_;
  // (correlation, record): the key beside the index, so sorting and
  // searching read no record.
  std::vector<std::pair<uint64_t, uint32_t>> by_correlation_;
  struct GraphKey {
    uint64_t node;
    uint32_t record;
    bool raw;  // the record's own node id, not the node it was cloned from
  };
  std::vector<GraphKey> by_graph_node_;
  std::vector<uint32_t> by_parent_;
  uint64_t left_out_ = 0;
  uint32_t count_ = 0;
};

}  // namespace brickprof::agent
