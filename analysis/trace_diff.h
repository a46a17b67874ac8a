// Compares two traces for CI: per-brick and per-kernel average times, with
// kernels matched by name and PTX hash ("same name, different code" is
// flagged), and a verdict: any slow-down beyond the threshold is a regression.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/trace.h"

namespace brickprof {

struct DiffEntry {
  enum class Kind : uint8_t { kBrick, kKernel };
  Kind kind = Kind::kBrick;
  std::string name;
  uint64_t ptx_hash = 0;         // kernels: a PTX hash of the new version
  uint64_t base_count = 0, new_count = 0;
  int64_t base_avg_ns = 0, new_avg_ns = 0;
  bool code_changed = false;     // kernel: same name, other PTX hashes
  bool regression = false;
  double change_pct() const;     // +: slower; 0 when either side is missing
};

struct TraceDiff {
  std::vector<DiffEntry> entries;  // regressions first, then by |change|
  double threshold_pct = 5;
  size_t regressions = 0;
  size_t code_changes = 0;
};

TraceDiff diff_traces(const Trace& base, const Trace& next, double threshold_pct);
void render_diff(const TraceDiff& diff, std::ostream& out, bool json);

}  // namespace brickprof
