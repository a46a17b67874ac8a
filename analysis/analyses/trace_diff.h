// Compares two traces for a CI gate: each brick (by name) and kernel (by
// name and PTX hash; "same name, different code" is flagged) is judged
// against the run-to-run spread the traces show, and the runs as a whole
// must be comparable. `brickprof diff BASE NEW` prints this and exits 1
// when the gate fails.
//
// The judgement of one brick or kernel, all of it from the traces:
// - its calls' spread: the change per call is the Hodges-Lehmann ratio of
//   NEW's calls to BASE's with its 99% interval (analysis/analyses/shift.h), so
//   a brick whose calls vary much needs a larger change to count; taken on
//   the fastest third of each side's calls (at least five), as waiting for
//   the CPU only ever adds time to a call while a slower brick moves them all;
// - the whole run's move: on a shared machine a run is often slower or
//   faster as a whole (load, clock speed: two runs of one program on a busy
//   2-core VM moved by +45%), so each entry is judged beyond the common move
//   of the others of its kind (the median of their ratios, weighted by their
//   typical time: median call x calls); and as such a move changes single
//   bricks unevenly (on that VM, by up to about 60% of the move: memory-bound
//   and compute-bound code react differently to a neighbour), the
//   threshold widens by 3/4 of the move;
// - its counts: calls gained count like slower calls;
// - a floor: the time it adds to NEW must exceed a share of BASE's time of
//   its kind (1% by default), so a tiny brick that doubled does not fail.
// The whole run's move itself is gated only when asked (--total-threshold
// PCT): a change that slows every brick alike (a debug build, another
// backend) and a busier machine look the same (same runs on that VM, its
// two cores shared, moved by up to +136% per call), so by default a large
// move is said, not judged. The common move per call is what is gated, not
// a kind's total (a few slow calls moved a same run's total by +52%).
// A regression: the interval's lower end, beyond the common move, is more
// than the (widened) threshold slower, and the time added is above the floor; or it
// was called more often by more than the threshold and that adds time above
// the floor; or it is new in NEW and takes more than the floor.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/analyses/shift.h"
#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

struct DiffEntry {
  enum class Kind : uint8_t { kBrick, kKernel };
  Kind kind = Kind::kBrick;
  std::string name;
  uint64_t ptx_hash = 0;       // kernels: the PTX hash (the new one if it changed)
  uint64_t base_ptx_hash = 0;  // kernels: the base's PTX hash (differs if code_changed)
  uint64_t base_count = 0, new_count = 0;
  int64_t base_avg_ns = 0, new_avg_ns = 0;
  int64_t base_median_ns = 0, new_median_ns = 0;
  int64_t base_total_ns = 0, new_total_ns = 0;
  Shift per_call;      // NEW / BASE per call, as measured (both sides only)
  double common = 1;   // the others' common move (NEW / BASE) it is judged beyond
  // How far beyond the common move, in percent, the interval's low end must
  // be for a regression: the threshold, widened by the common move itself.
  double limit_pct = 0;
  int64_t added_ns = 0;  // what it adds to NEW beyond the common move, counts included
  bool code_changed = false;  // kernel: same name, other PTX hashes
  // Slower or faster per call by the threshold, beyond the spread; or called
  // more or less often by the threshold.
  bool changed = false;
  bool regression = false;
  bool within_spread = false;  // slower or faster by the threshold, but not beyond the
                               // spread of its calls: not counted, not listed
  bool below_floor = false;    // changed beyond threshold and spread, but adds no more
                               // than the floor: neither a regression nor listed as text
  bool both() const { return base_count && new_count; }
  // Beyond the common move, in percent (+: slower): the estimate and the
  // interval's ends; 0 unless both sides have calls.
  double relative_pct() const;
  double relative_low_pct() const;
  double relative_high_pct() const;
  // Average per call as measured, in percent; 0 when either side is missing.
  double change_pct() const;
  // (new avg - base avg) x new count; 0 when either side is missing.
  int64_t change_ns() const;
};

// What counts as a regression.
struct DiffLimits {
  double threshold_pct = 5;
  // The floor: an absolute time when set (--min-time 50us), else this share
  // of BASE's time of the entry's kind (all bricks' time, all kernels' GPU time).
  std::optional<int64_t> min_time_ns;
  double min_time_pct = 1;
  // When set, the gate also fails when a kind's common move per call is
  // slower by more than this (--total-threshold); off by default.
  std::optional<double> total_threshold_pct;
  bool any_program = false;  // compare traces of differently named programs
};

// One kind's totals (bricks, or kernels) in both runs.
struct DiffTotals {
  int64_t base_ns = 0, new_ns = 0;
  uint64_t base_calls = 0, new_calls = 0;
  size_t entries_both = 0, entries_gone = 0, entries_new = 0;
  double common = 1;      // the time-weighted median move per call of the entries in both
  int64_t floor_ns = 0;   // the floor for this kind's entries
  double lost_share = 0;  // share of BASE's time in entries NEW does not have
  double change_pct() const;  // of the total time; 0 when BASE has none
};

struct TraceDiff {
  std::vector<DiffEntry> entries;  // regressions first, then by |relative change|
  DiffLimits limits;
  std::string base_program, new_program;
  DiffTotals bricks, kernels;
  size_t regressions = 0;
  size_t code_changes = 0;
  size_t below_floor = 0;    // entries with below_floor set
  size_t within_spread = 0;  // entries with within_spread set
  // Why the gate fails beyond single entries, one line each (another
  // program, most of BASE gone, nothing to compare, a total beyond
  // --total-threshold); empty when none.
  std::vector<std::string> run_problems;
  bool failed() const { return regressions > 0 || !run_problems.empty(); }
};

// O(n log n) in the number of nodes (at most 65,536 pairs per entry).
TraceDiff diff_traces(const Trace& base, const Trace& next, const DiffLimits& limits);
// The renderers (analysis/views/view_diff.cpp). Text says how it judged,
// the totals, what changed beyond the limits, changed code, gone and new,
// what the spread and the floor kept out, and the verdict; JSON lists every
// entry.
void diff_text(const TraceDiff& diff, std::ostream& out);
void diff_json(const TraceDiff& diff, JsonWriter& out);
// The verdict in one line ("PASS: ..." or "FAIL: ..."), as diff_text ends.
std::string diff_verdict(const TraceDiff& diff);

}  // namespace brickprof
