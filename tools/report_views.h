// The views `brickprof report` can print. Adding one (critical path,
// roofline, transfers, ...) is a view_<name>.cpp with its render functions
// and one row in report_views() (report_views.cpp); the flag, help text and
// --json handling follow from the row.
#pragma once

#include <ostream>
#include <vector>

#include "analysis/json_writer.h"
#include "analysis/trace.h"

namespace brickprof::cli {

struct ReportView {
  const char* name;  // the flag: "tree" -> --tree
  const char* help;
  bool by_default;  // shown when no view flag is given
  void (*text)(const Trace& trace, std::ostream& out);
  // Writes the view as one JSON value (for --json); nullptr if the view has
  // no JSON form.
  void (*json)(const Trace& trace, JsonWriter& out);
};

const std::vector<ReportView>& report_views();

// The views, each in view_<name>.cpp.
void summary_text(const Trace& trace, std::ostream& out);
void summary_json(const Trace& trace, JsonWriter& out);
void tree_text(const Trace& trace, std::ostream& out);
void tree_json(const Trace& trace, JsonWriter& out);
void critical_path_text(const Trace& trace, std::ostream& out);
void roofline_text(const Trace& trace, std::ostream& out);
void transfers_text(const Trace& trace, std::ostream& out);
void analyze_text(const Trace& trace, std::ostream& out);

}  // namespace brickprof::cli
