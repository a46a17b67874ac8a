// The ASCII execution tree (<prefix>.tree.txt), rendered from the aggregate
// tree in the seed's form: "├── RmsNorm 50.0µs (4096 elem) ×12".
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "trace/derive/aggregate_tree.h"
#include "trace/model/trace.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

struct TreeOptions {
  // Entries deeper than this (roots are depth 1) are replaced by one
  // "… N more" line under their parent; 0 = no limit.
  uint32_t max_depth = 32;
  // At most this many children per entry, then "… N more"; 0 = no limit.
  uint32_t max_children = 256;
};

void write_tree(const Trace& trace, const AggregateTree& tree, std::ostream& out,
                const TreeOptions& options = {});

// The tree as a sink (trace_sink.h), from the producer's aggregate.
class TreeSink : public TraceSink {
 public:
  explicit TreeSink(std::ostream& out, const TreeOptions& options = {})
      : out_(out), options_(options) {}
  unsigned needs() const override { return kAggregate; }
  void aggregate(const AggregateInput& in) override;

 private:
  std::ostream& out_;
  TreeOptions options_;
};

// One entry's text without the tree drawing: "Layer 0 1.23ms ×100",
// "rmsnorm_kernel <<<16,256,3>>> smem=1024B 12.3µs", "H2D 4.0MB 50.0µs".
std::string tree_entry_text(const Trace& trace, const AggregateTree& tree, uint32_t agg);

}  // namespace brickprof
