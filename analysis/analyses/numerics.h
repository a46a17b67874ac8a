// `report --numerics`: where non-finite numbers first appear, from the
// output checksums (trace/model/checksum.h), and in a merged job whether
// ranks that should hold the same outputs do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analyses/output_diff.h"
#include "trace/model/trace.h"

namespace brickprof {

// An output of one rank that differs from rank 0's at the same path.
struct ReplicaMismatch {
  std::string path;
  std::vector<std::string> ranks;  // the sources whose digest differs from the first's
};

struct NumericsReport {
  std::vector<OutputAt> outputs;  // execution order
  // The first output with a NaN or Inf: every output before it was finite,
  // so its inputs (outputs before it) had none.
  std::optional<size_t> first_nonfinite;
  size_t nonfinite = 0;  // outputs with a NaN or Inf
  uint64_t nan = 0, inf = 0;
  // Merged traces: paths every source has, and those where some differ.
  size_t replicas_compared = 0;
  std::vector<ReplicaMismatch> mismatches;
};

NumericsReport analyze_numerics(const Trace& trace);

}  // namespace brickprof
