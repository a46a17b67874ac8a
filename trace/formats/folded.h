// Collapsed stacks (<prefix>.folded) for flame graphs: one line per distinct
// stack, "Layer 0;RmsNorm;rmsnorm_kernel 50000", weight = self time in
// nanoseconds (CPU frames: duration minus CPU children; GPU frames: the GPU
// operation's duration). Lines are aggregated and sorted by stack. As
// perf's max-stack, a stack keeps its first kMaxFoldedFrames frames; what
// is deeper is one frame "[deeper frames]" holding all of its self time.
#pragma once

#include <cstdint>
#include <ostream>

#include "trace/derive/aggregate_tree.h"
#include "trace/model/trace.h"
#include "trace/output/trace_sink.h"

namespace brickprof {

inline constexpr uint32_t kMaxFoldedFrames = 127;

void write_folded(const Trace& trace, const AggregateTree& tree, std::ostream& out);

// The stacks as a sink (trace_sink.h), from the producer's aggregate. The
// stacks' trie is asked of the producer's budget: kFoldedEntryBytes an
// entry, as measured (the trie node and its text).
class FoldedSink : public TraceSink {
 public:
  static constexpr uint64_t kFoldedEntryBytes = 192;
  explicit FoldedSink(std::ostream& out) : out_(out) {}
  unsigned needs() const override { return kAggregate; }
  void aggregate(const AggregateInput& in) override;

 private:
  std::ostream& out_;
};

}  // namespace brickprof
