// Where the numbers changed: two runs' output checksums (trace/model/
// checksum.h) lined up by execution path, and the first output that
// differs beyond tolerance (`brickprof diff --outputs`).
//
// An output's path is its node's ancestry, each step a node's label and
// its ordinal among its parent's children of the same label ("layer 3 #0
// / DownProjection #0 / gemv_q4k #1"), then the output's name: a kernel
// only in one run shifts nothing outside its own brick. Where outputs come
// from the top-level work of several threads, a root's label starts with
// its thread (its name where unique, else "#k" by the order of the threads'
// first roots), so threads that interleave differently still line up.
//
// How far two outputs of the same length are apart, from their digests:
// the distance ||a - b|| is estimated from the random projections (their
// mean squared difference is ||a - b||^2) and is at least
// | ||a|| - ||b|| | and |sum a - sum b| / sqrt(n), which hold exactly; an
// output with the same bytes (FNV-1a) is at distance 0. Then rel =
// distance / ||base||, cos = (||a||^2 + ||b||^2 - distance^2) / (2 ||a|| ||b||),
// rms = distance / sqrt(n), ulp = rel / the type's epsilon.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "trace/json/json_writer.h"
#include "trace/model/trace.h"

namespace brickprof {

struct OutputTolerance {
  double atol = 1e-6;  // per element: the rms of the difference
  double rtol = 1e-3;  // relative to the base's norm
  // When set: the relative tolerance as this many units in the last place
  // of the output's type (f32: ulp x 1.19e-7), instead of rtol.
  std::optional<double> ulp;
};

// One output of a run, in execution order.
struct OutputAt {
  std::string path;      // as above, with the output's name last
  std::string launched;  // the node's scope path without ordinals (what the user reads)
  const OutputChecksum* checksum = nullptr;
  uint64_t ptx_hash = 0;  // a kernel's code, 0 for a scope
};
// A run's outputs in execution order (node start, then as taken).
std::vector<OutputAt> outputs_in_order(const Trace& trace);

struct OutputComparison {
  size_t base = 0, next = 0;  // indexes into the runs' outputs_in_order
  bool identical = false;     // same bytes
  bool beyond = false;        // beyond the tolerance
  bool other_code = false;    // a kernel whose PTX hash changed
  double distance = 0, rel = 0, cosine = 1, rms = 0, ulp = 0;
  std::string why;  // when beyond for a reason the distance does not say
};

struct OutputDiff {
  std::vector<OutputAt> base, next;
  OutputTolerance tolerance;
  std::vector<OutputComparison> compared;  // in BASE's execution order
  std::vector<size_t> only_base, only_next;  // indexes into base / next
  size_t identical = 0, within = 0, beyond = 0;

  const OutputComparison* first_beyond() const;
  const OutputComparison* first_changed() const;  // not bit-identical
  bool failed() const { return beyond > 0; }
};

OutputDiff diff_outputs(const Trace& base, const Trace& next, const OutputTolerance& tolerance);
void output_diff_text(const OutputDiff& d, std::ostream& out);
void output_diff_json(const OutputDiff& d, JsonWriter& w);
// "PASS: ..." or "FAIL: ...": the verdict's line.
std::string output_diff_verdict(const OutputDiff& d);

}  // namespace brickprof
