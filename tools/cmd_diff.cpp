// `brickprof diff BASE NEW [--threshold PCT] [--json]`: compares two saved
// traces per brick and per kernel (analysis/trace_diff.h) and exits 1 when
// anything got slower by more than the threshold, so CI can gate on it.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/trace_diff.h"
#include "analysis/trace_json.h"
#include "tools/command.h"

namespace brickprof::cli {
namespace {

constexpr double kDefaultThresholdPct = 5;

struct DiffOptions {
  std::string base;
  std::string next;
  double threshold_pct = kDefaultThresholdPct;
  bool json = false;
};

std::string format_pct(double pct) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", pct);
  return text;
}

int diff(const DiffOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("diff: unexpected arguments after --");
  if (!std::isfinite(o.threshold_pct) || o.threshold_pct < 0)
    return fail("diff: --threshold must be a percentage >= 0");
  Trace base, next;
  try {
    base = read_trace_file(o.base);
    next = read_trace_file(o.next);
  } catch (const TraceError& e) {
    return fail(e.what());  // already "FILE: problem"
  }
  const TraceDiff d = diff_traces(base, next, o.threshold_pct);
  render_diff(d, std::cout, o.json);
  std::cout.flush();
  if (!std::cout) return fail("cannot write to standard output");
  return d.regressions ? kExitRegression : kExitOk;
}

}  // namespace

Command add_diff_command(CLI::App& parent) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* sub = parent.add_subcommand(
      "diff", "Compare two traces per brick and kernel; exit 1 on a regression (for CI)");
  sub->add_option("BASE", o->base, "The reference trace (JSON)")->required();
  sub->add_option("NEW", o->next, "The trace to check against BASE (JSON)")->required();
  sub->add_option("--threshold", o->threshold_pct,
                  "A brick or kernel whose average time grew by more than PCT percent is a "
                  "regression (default " +
                      format_pct(kDefaultThresholdPct) + ")")
      ->type_name("PCT");
  sub->add_flag("--json", o->json, "Print every entry as JSON instead of the changes as text");
  sub->footer(
      "Bricks are matched by name; kernels by name and PTX hash, and a kernel whose name is in "
      "both traces but whose code differs is compared anyway and flagged \"same name, different "
      "code\". Times are averages per call (bricks: CPU scope time, kernels: GPU time).\n"
      "Exit code 0: no regression beyond the threshold; 1: at least one; 2: usage error or bad "
      "input.");
  return {sub, [o](const std::vector<std::string>& trailing) { return diff(*o, trailing); }};
}

}  // namespace brickprof::cli
