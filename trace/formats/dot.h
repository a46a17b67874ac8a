// The Graphviz execution graph (<prefix>.dot), drawn from the aggregate tree:
// layers and bricks as boxes coloured by category, kernels as ellipses,
// transfers as notes; "contains" and "launches" edges from the tree, plus
// the trace's sequence / depends_on edges mapped onto merged entries.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "trace/derive/aggregate_tree.h"
#include "trace/model/trace.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

struct DotOptions {
  // Entries beyond this many are left out, with one note saying how many.
  uint32_t max_nodes = 5000;
  // Distinct sequence / depends_on edges drawn at most.
  uint32_t max_extra_edges = 2000;
};

void write_dot(const Trace& trace, const AggregateTree& tree, std::ostream& out,
               const DotOptions& options = {});

// The graph as a sink (trace_sink.h), from the producer's aggregate.
class DotSink : public TraceSink {
 public:
  explicit DotSink(std::ostream& out, const DotOptions& options = {})
      : out_(out), options_(options) {}
  unsigned needs() const override { return kAggregate; }
  void aggregate(const AggregateInput& in) override;

 private:
  std::ostream& out_;
  DotOptions options_;
};

// Appends `text` as the body of a DOT double-quoted string: quotes and
// backslashes escaped, control characters replaced by spaces.
void append_dot_escaped(std::string& out, std::string_view text);

}  // namespace brickprof
