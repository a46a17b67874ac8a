// The views `brickprof report` can print. Adding one (critical path,
// roofline, transfers, ...) is a view_<name>.cpp with its render functions
// and one row in report_views() (report_views.cpp), or only the row for an
// analysis/report_views.h renderer that takes no settings (text_of,
// json_of); the flag, help text and --json handling follow from the row.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/machine_peaks.h"
#include "analysis/trace.h"

namespace brickprof::cli {

// What the command line says about how to render, beyond which views: the
// same for every view, so the table's rows keep one signature.
struct ReportSettings {
  PeakOverrides peaks;  // --peak-gflops, --peak-gbps, --link-gbps
};

struct ReportView {
  const char* name;  // the flag: "tree" -> --tree; also the view's --json key
  const char* help;
  bool by_default;  // shown when no view flag is given
  void (*text)(const Trace& trace, const ReportSettings& settings, std::ostream& out);
  // Writes the view as one JSON value (for --json); nullptr if the view has
  // no JSON form. A stream, not a shared writer, so views rendered by
  // analysis/report_views.h (which bring their own writer) fit in too.
  void (*json)(const Trace& trace, const ReportSettings& settings, std::ostream& out);
};

const std::vector<ReportView>& report_views();

// A row's text and JSON forms for an analysis/report_views.h renderer that
// takes no settings (render_critical_path, render_gpu_idle, ...).
using Render = void (*)(const Trace& trace, std::ostream& out, bool json);
template <Render render>
void text_of(const Trace& trace, const ReportSettings&, std::ostream& out) {
  render(trace, out, false);
}
template <Render render>
void json_of(const Trace& trace, const ReportSettings&, std::ostream& out) {
  render(trace, out, true);
}

// The views, each in view_<name>.cpp.
void summary_text(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void summary_json(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void tree_text(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void tree_json(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void roofline_text(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void roofline_json(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void transfers_text(const Trace& trace, const ReportSettings& settings, std::ostream& out);
void transfers_json(const Trace& trace, const ReportSettings& settings, std::ostream& out);

// `--what-if NAME=K` takes an argument, so it is not a row of the table:
// each spec (already checked with parse_what_if_spec) is evaluated on one
// dependency graph, as text lines or as a JSON array of results.
void what_if_text(const Trace& trace, const std::vector<std::string>& specs, std::ostream& out);
void what_if_json(const Trace& trace, const std::vector<std::string>& specs, std::ostream& out);

}  // namespace brickprof::cli
