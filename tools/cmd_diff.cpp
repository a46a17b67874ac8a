// `brickprof diff BASE NEW [--threshold PCT] [--min-time DUR|PCT%] [--total-threshold PCT]
// [--any-program] [--under NAME] [--json] [-o FILE] [--html PAGE] [--outputs [--atol X]
// [--rtol X] [--ulp N]]`: compares two saved
// traces per brick and per kernel against the spread the runs show
// (analysis/analyses/trace_diff.h) and exits 1 when the gate fails, so CI can
// gate on it; --html writes the diff's HTML page (analysis/html/html_page.h)
// instead of the text and prints the verdict. --outputs compares the runs'
// output checksums instead (analysis/analyses/output_diff.h).
#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <new>
#include <stdexcept>

#include "analysis/analyses/output_diff.h"
#include "analysis/analyses/trace_diff.h"
#include "analysis/analyses/trace_subset.h"
#include "analysis/html/html_page.h"
#include "tools/command.h"
#include "tools/output_file.h"
#include "tools/progress.h"
#include "tools/trace_input.h"
#include "trace/json/json_writer.h"
#include "trace/json/trace_json.h"
#include "trace/model/format.h"
#include "trace/model/printable.h"
#include "trace/output/sink.h"

namespace brickprof::cli {
namespace {

// The gate's defaults as the user would type them: DiffLimits holds them once.
std::string default_percent(double pct) { return format_fixed(pct, 0) + "%"; }

struct DiffOptions {
  std::string base;
  std::string next;
  std::string threshold = default_percent(DiffLimits{}.threshold_pct);
  std::string min_time = default_percent(DiffLimits{}.min_time_pct);
  std::string total_threshold;  // empty: off
  bool any_program = false;
  std::string under;  // empty: the whole traces
  bool json = false;
  std::string out;   // the text or JSON to this file instead of stdout
  std::string html;  // the HTML page to write, if any
  bool quiet = false;
  // --outputs: compare output checksums instead of times.
  bool outputs = false;
  double atol = OutputTolerance{}.atol;
  double rtol = OutputTolerance{}.rtol;
  std::optional<double> ulp;
};

// "5", "5%" or "2.5%": a percentage >= 0.
bool parse_percent(std::string_view text, double* pct) {
  if (!text.empty() && text.back() == '%') text.remove_suffix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || value < 0)
    return false;
  *pct = value;
  return true;
}

// The limits from the options, or a usage problem.
std::string read_limits(const DiffOptions& o, DiffLimits* limits) {
  if (!parse_percent(o.threshold, &limits->threshold_pct))
    return "--threshold: '" + o.threshold + "' is not a percentage >= 0 (e.g. 5 or 5%)";
  const std::string_view min_time = o.min_time;
  if (!min_time.empty() && min_time.back() == '%') {
    if (!parse_percent(min_time, &limits->min_time_pct))
      return "--min-time: '" + o.min_time + "' is not a percentage >= 0 (e.g. 5%)";
  } else {
    int64_t ns = 0;
    if (!parse_duration(min_time, &ns))
      return "--min-time: '" + o.min_time +
             "' is not a duration >= 0 (e.g. 5us, 0.5ms, 200ns; a plain number is µs) or a "
             "share of BASE's typical time (5%)";
    limits->min_time_ns = ns;
  }
  if (!o.total_threshold.empty()) {
    double pct = 0;
    if (!parse_percent(o.total_threshold, &pct))
      return "--total-threshold: '" + o.total_threshold +
             "' is not a percentage >= 0 (e.g. 50 or 50%)";
    limits->total_threshold_pct = pct;
  }
  limits->any_program = o.any_program;
  return "";
}

int diff(const DiffOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("diff: unexpected arguments after --");
  DiffLimits limits;
  if (std::string problem = read_limits(o, &limits); !problem.empty())
    return fail("diff: " + problem);
  Trace base, next;
  Progress progress(progress_wanted(o.quiet), std::cerr);
  try {
    base = read_trace_input(o.base, progress.reading(o.base, "1 of 2"));
    next = read_trace_input(o.next, progress.reading(o.next, "2 of 2"));
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
        return fail(*file + ": " + no_scope_named(*trace, o.under));
      }
      *trace = std::move(subset.trace);
    }
  }
  if (o.outputs) {
    const OutputDiff d = diff_outputs(base, next, {o.atol, o.rtol, o.ulp});
    const int verdict = d.failed() || d.compared.empty() ? kExitRegression : kExitOk;
    if (!o.html.empty()) {
      // The page shows the outputs first, the times' diff after them.
      const TraceDiff times = diff_traces(base, next, limits);
      progress.done();
      std::string error = write_file_atomically(o.html, [&](std::ostream& out) {
        try {
          write_diff_page(out, {&base, o.base}, {&next, o.next}, times, o.under, &d);
        } catch (const std::bad_alloc&) {
          throw std::runtime_error("out of memory writing the page");
        }
      });
      if (!error.empty()) return fail(error);
      say_written(o.html);
      if (!o.json) {
        std::cout << output_diff_verdict(d) << std::endl;
        return verdict;
      }
    }
    progress.done();
    const int written = write_output(o.out, [&](std::ostream& out) {
      if (o.json) {
        JsonWriter w(out);
        output_diff_json(d, w);
      } else {
        output_diff_text(d, out);
      }
    });
    return written != kExitOk ? written : verdict;
  }
  const TraceDiff d = diff_traces(base, next, limits);
  progress.done();  // before the output, which may go to the same terminal
  const int verdict = d.failed() ? kExitRegression : kExitOk;
  if (!o.html.empty()) {
    std::string error = write_file_atomically(o.html, [&](std::ostream& out) {
      try {
        write_diff_page(out, {&base, o.base}, {&next, o.next}, d, o.under);
      } catch (const std::bad_alloc&) {
        throw std::runtime_error("out of memory writing the page");
      }
    });
    if (!error.empty()) return fail(error);
    say_written(o.html);
    // The page is the output; the verdict in one line, the JSON only when
    // asked for as well.
    if (!o.json) {
      std::cout << diff_verdict(d) << std::endl;
      return verdict;
    }
  }
  const int written = write_output(o.out, [&](std::ostream& out) {
    if (o.json) {
      JsonWriter w(out);
      diff_json(d, w);
      return;
    }
    if (!o.under.empty()) out << "Under \"" << printable(o.under) << "\" in both traces\n\n";
    diff_text(d, out);
  });
  return written != kExitOk ? written : verdict;
}

}  // namespace

Command add_diff_command(CLI::App& parent) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* sub = parent.add_subcommand(
      "diff", "Compare two traces per brick and kernel; exit 1 when the gate fails (for CI)");
  sub->add_option("BASE", o->base, "The reference trace (.json or .json.gz)")
      ->required()
      ->type_name("FILE");
  sub->add_option("NEW", o->next, "The trace to check against BASE")->required()->type_name("FILE");
  const char* gate = "The gate";
  sub->add_option("--threshold", o->threshold,
                  "A brick or kernel regresses when, beyond the others' common move and with "
                  "99% confidence from the spread of its calls, it is slower per call, or "
                  "called more often, by more than PCT")
      ->type_name("PCT")
      ->default_str(o->threshold)
      ->group(gate);
  sub->add_option("--min-time", o->min_time,
                  "...and it adds more than this to NEW: a share of BASE's typical time of "
                  "its kind (median call x calls over the bricks' CPU time or the kernels' "
                  "GPU time), or a duration (50us, 0.5ms; a plain number is µs; 0: no floor)")
      ->type_name("PCT%|DUR")
      ->default_str(o->min_time)
      ->group(gate);
  sub->add_option("--total-threshold", o->total_threshold,
                  "Also fail when the bricks (or kernels) together got slower per call by "
                  "more than PCT, which judging each beyond their common move cannot see. Off "
                  "by default: a busier machine moves whole runs alike (same runs moved by up "
                  "to +136% on a shared 2-core VM); a move over 50% is said either way")
      ->type_name("PCT")
      ->group(gate);
  sub->add_flag("--any-program", o->any_program,
                "Compare traces of differently named programs (by default that fails the gate)")
      ->group(gate);
  sub->add_option("--under", o->under,
                  "Compare only what ran under scopes named NAME in each trace (e.g. \"decode "
                  "token\"; exact, and exit 2 with the closest names when a trace has none)")
      ->type_name("NAME")
      ->group(gate);
  const char* outputs = "Outputs (--outputs)";
  sub->add_flag("--outputs", o->outputs,
                "Compare the runs' output checksums (brickprof run --checksums, "
                "brickprof_checksum) instead of their times: lined up by execution path, the "
                "first output beyond tolerance named; exit 1 when one is. With --html the page "
                "shows them first, the first divergence marked, the times' diff after")
      ->group(outputs);
  sub->add_option("--atol", o->atol,
                  "Absolute tolerance per element (the rms of the difference)")
      ->check(CLI::NonNegativeNumber)
      ->default_str(format_fixed(o->atol * 1e6, 0) + "e-6")
      ->group(outputs);
  sub->add_option("--rtol", o->rtol, "Tolerance relative to BASE's output (its L2 norm)")
      ->check(CLI::NonNegativeNumber)
      ->default_str(format_fixed(o->rtol * 1e3, 0) + "e-3")
      ->group(outputs);
  sub->add_option("--ulp", o->ulp,
                  "The relative tolerance as N units in the last place of the output's type "
                  "(f32: N x 1.19e-7; f16: N x 9.8e-4), instead of --rtol")
      ->check(CLI::NonNegativeNumber)
      ->type_name("N")
      ->group(outputs);
  const char* output = "Output";
  sub->add_flag("--json", o->json, "Print every entry as JSON instead of the changes as text")
      ->group(output);
  sub->add_option("-o,--output", o->out,
                  "Write the text (or JSON) to FILE, atomically, instead of stdout")
      ->type_name("FILE")
      ->group(output);
  sub->add_option("--html", o->html,
                  "Write the diff's HTML page to PAGE (one self-contained file) and print the "
                  "verdict instead of the text; --json still prints the JSON")
      ->type_name("PAGE")
      ->group(output);
  add_quiet_flag(*sub, o->quiet);
  sub->footer(
      "Bricks are matched by name; kernels by name and PTX hash (a kernel whose code changed is "
      "compared anyway and flagged \"same name, different code\"). Each brick's calls (CPU "
      "time) and kernel's launches (GPU time) are compared pair by pair: the change per call "
      "is the median NEW/BASE ratio, with the 99% interval their spread allows, taken beyond "
      "the common move of the others of its kind (a busy machine slows whole runs). The gate "
      "also fails when NEW lacks most of BASE's bricks or kernels, or comes from another "
      "program. The text ends with PASS or FAIL and why.\n"
      "Exit code: 0 pass; 1 the gate fails; 2 usage error or bad input.\n"
      "Examples:\n"
      "  brickprof diff base.json new.json\n"
      "  brickprof diff base.json new.json --under \"decode token\" --html diff.html\n"
      "  brickprof diff scalar.json avx2.json --outputs --rtol 1e-4");
  return {sub, [o](const std::vector<std::string>& trailing) { return diff(*o, trailing); }};
}

}  // namespace brickprof::cli
