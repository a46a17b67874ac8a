// `brickprof diff BASE NEW [--threshold PCT] [--min-time DUR] [--under NAME] [--json]
// [--html PAGE]`: compares two saved traces per brick and per kernel
// (analysis/analyses/trace_diff.h) and exits 1 when anything got slower by more than
// the threshold and the minimum time, so CI can gate on it; --html writes the
// diff's HTML page (analysis/html/html_page.h) instead of the text.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <new>
#include <stdexcept>

#include "analysis/analyses/trace_diff.h"
#include "analysis/analyses/trace_subset.h"
#include "analysis/export/sink.h"
#include "analysis/html/html_page.h"
#include "analysis/json/json_writer.h"
#include "analysis/json/trace_json.h"
#include "analysis/model/format.h"
#include "analysis/model/printable.h"
#include "tools/command.h"
#include "tools/progress.h"

namespace brickprof::cli {
namespace {

struct DiffOptions {
  std::string base;
  std::string next;
  double threshold_pct = DiffLimits{}.threshold_pct;
  std::string min_time;
  CLI::Option* min_time_option = nullptr;  // unset: the default
  std::string under;                       // empty: the whole traces
  bool json = false;
  std::string html;  // the HTML page to write, if any
  bool quiet = false;
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
  DiffLimits limits;
  limits.threshold_pct = o.threshold_pct;
  if (o.min_time_option->count() && !parse_duration(o.min_time, &limits.min_time_ns))
    return fail("diff: --min-time: '" + o.min_time +
                "' is not a duration >= 0 (e.g. 5us, 0.5ms, 200ns; a plain number is µs)");
  Trace base, next;
  Progress progress(progress_wanted(o.quiet), std::cerr);
  try {
    base = read_trace_file(o.base, progress.reading(o.base, "1 of 2"));
    next = read_trace_file(o.next, progress.reading(o.next, "2 of 2"));
  } catch (const TraceError& e) {
    progress.done();
    return fail(e.what());  // already "FILE: problem"
  }
  progress.step("comparing");
  if (!o.under.empty()) {
    for (auto [trace, file] : {std::pair{&base, &o.base}, std::pair{&next, &o.next}}) {
      Subset subset = subtrees_named(*trace, o.under);
      if (subset.roots == 0) {
        progress.done();
        return fail(*file + ": no scope named '" + o.under + "' (--under)");
      }
      *trace = std::move(subset.trace);
    }
  }
  const TraceDiff d = diff_traces(base, next, limits);
  progress.done();  // before the output, which may go to the same terminal
  if (!o.html.empty()) {
    std::string error = write_file_atomically(o.html, [&](std::ostream& out) {
      try {
        write_diff_page(out, {&base, o.base}, {&next, o.next}, d, o.under);
      } catch (const std::bad_alloc&) {
        throw std::runtime_error("out of memory writing the page");
      }
    });
    if (!error.empty()) return fail(error);
    // The page is the output; the JSON only when asked for as well.
    if (!o.json) return d.regressions ? kExitRegression : kExitOk;
  }
  if (!o.under.empty() && !o.json)
    std::cout << "Under \"" << printable(o.under) << "\" in both traces\n\n";
  if (o.json) {
    JsonWriter w(std::cout);
    diff_json(d, w);
  } else {
    diff_text(d, std::cout);
  }
  std::cout.flush();
  if (!std::cout) return fail("cannot write to standard output");
  return d.regressions ? kExitRegression : kExitOk;
}

}  // namespace

Command add_diff_command(CLI::App& parent) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* sub = parent.add_subcommand(
      "diff", "Compare two traces per brick and kernel; exit 1 on a regression (for CI)");
  sub->add_option("BASE", o->base, "The reference trace (.json or .json.gz)")->required();
  sub->add_option("NEW", o->next, "The trace to check against BASE (.json or .json.gz)")
      ->required();
  sub->add_option("--threshold", o->threshold_pct,
                  "A brick or kernel whose average time grew by more than PCT percent is a "
                  "regression (default " +
                      format_pct(DiffLimits{}.threshold_pct) + ")")
      ->type_name("PCT");
  o->min_time_option =
      sub->add_option("--min-time", o->min_time,
                      "...and whose calls together took more than DUR longer (5us, 0.5ms, 200ns; "
                      "a plain number is µs; default " +
                          format_duration(DiffLimits{}.min_time_ns) + ")")
          ->type_name("DUR");
  sub->add_option("--under", o->under,
                  "Compare only what ran under scopes named NAME in each trace (e.g. \"decode "
                  "token\")")
      ->type_name("NAME");
  sub->add_flag("--json", o->json, "Print every entry as JSON instead of the changes as text");
  sub->add_option("--html", o->html,
                  "Write the diff's HTML page to this file (one self-contained file for a "
                  "browser) instead of printing the text; --json still prints the JSON")
      ->type_name("PAGE");
  add_quiet_flag(*sub, o->quiet);
  sub->footer(
      "Bricks are matched by name; kernels by name and PTX hash, and a kernel whose name is in "
      "both traces but whose code differs is compared anyway and flagged \"same name, different "
      "code\". Times are averages per call (bricks: CPU scope time, kernels: GPU time); the "
      "minimum time applies to (new average - base average) x calls in NEW, so a tiny brick "
      "that doubled is not a regression unless it adds up.\n"
      "Exit code 0: no regression beyond the limits; 1: at least one; 2: usage error or bad "
      "input.");
  return {sub, [o](const std::vector<std::string>& trailing) { return diff(*o, trailing); }};
}

}  // namespace brickprof::cli
