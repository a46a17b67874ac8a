// Compares two traces for CI: per-brick and per-kernel average times, with
// kernels matched by name and PTX hash ("same name, different code" is
// flagged), and a verdict: a slow-down beyond the threshold percentage that
// also cost more than a minimum absolute time is a regression.
// `brickprof diff BASE NEW` prints this and exits 1 on a regression.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/json/json_writer.h"
#include "analysis/model/trace.h"

namespace brickprof {

struct DiffEntry {
  enum class Kind : uint8_t { kBrick, kKernel };
  Kind kind = Kind::kBrick;
  std::string name;
  uint64_t ptx_hash = 0;       // kernels: the PTX hash (the new one if it changed)
  uint64_t base_ptx_hash = 0;  // kernels: the base's PTX hash (differs if code_changed)
  uint64_t base_count = 0, new_count = 0;
  int64_t base_avg_ns = 0, new_avg_ns = 0;
  bool code_changed = false;  // kernel: same name, other PTX hashes
  bool regression = false;
  bool below_floor = false;   // changed by the threshold or more, but by no more than
                              // the minimum time: neither a regression nor listed as text
  double change_pct() const;  // +: slower; 0 when either side is missing
  // The time the change in average cost NEW over all its calls:
  // (new avg - base avg) x new count; +: slower; 0 when either side is missing.
  int64_t change_ns() const;
};

// What counts as a regression: both limits must be exceeded.
struct DiffLimits {
  double threshold_pct = 5;
  // 1 µs: about the jitter of one measured scope or kernel launch, so a
  // single call that moved by less is noise (see tools/README.md).
  int64_t min_time_ns = 1000;
};

// Kernels are compared per (name, PTX hash). Versions of one name that have
// no partner with the same hash on the other side are compared with each
// other (it is the same job, recompiled) and flagged code_changed when both
// sides know their hashes; hash 0 means "not recorded" and never flags.
struct TraceDiff {
  std::vector<DiffEntry> entries;  // regressions first, then by |change|; ties: bricks,
                                   // then kernels, each by name
  DiffLimits limits;
  size_t regressions = 0;
  size_t code_changes = 0;
  size_t below_floor = 0;  // entries with below_floor set
};

// O(n log n) in the number of nodes.
TraceDiff diff_traces(const Trace& base, const Trace& next, const DiffLimits& limits);
// The renderers (analysis/views/view_diff.cpp). Text lists only what changed
// (regressions, changed code, gone/new, and moves beyond both limits) and
// counts what the minimum time hid; JSON lists every entry.
void diff_text(const TraceDiff& diff, std::ostream& out);
void diff_json(const TraceDiff& diff, JsonWriter& out);

}  // namespace brickprof
