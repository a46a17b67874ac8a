// The HTML report page of a trace, or of the diff of two, as one
// self-contained file (tools/html/README.md): the page shell embedded at
// build time around the data it reads, `brickprof-html/1`, written in one
// pass from the views' models and the trace.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analyses/output_diff.h"
#include "analysis/analyses/trace_diff.h"
#include "analysis/html/html_icicle.h"
#include "analysis/html/html_timeline.h"
#include "analysis/views/views.h"
#include "trace/model/trace.h"

namespace brickprof {

// What the page takes at most before it reduces (the contract's limits).
struct HtmlLimits {
  size_t max_slices = 250'000;  // timeline slices
  size_t max_icicle = 20'000;   // flame-graph entries
  size_t max_list = 10'000;     // entries of a list directly under a view
};

// The page shows each view that has a JSON form but the tree, whose
// aggregate the flame graph draws.
bool shown_on_html_page(const View& view);

// One report view on the page: its registry entry and computed model.
struct PageView {
  const View* view = nullptr;
  const ViewModel* model = nullptr;
};

struct ReportPageInput {
  const Trace* trace = nullptr;  // as the views saw it (under --under: the subset)
  std::string file;              // the trace's path; the page names the file
  std::string under_json;        // the views' "under" object, or empty
  std::vector<PageView> views;   // in registry order
  HtmlLimits limits;
};

// The report page of one trace. The timeline and the flame graph are built
// on construction, so a trace too large for the memory shows before any file
// is opened; the views are rendered as the page is written.
class HtmlReportPage {
 public:
  explicit HtmlReportPage(ReportPageInput input);
  void write(std::ostream& out) const;

  const HtmlTimeline& timeline() const { return timeline_; }
  const HtmlIcicle& icicle() const { return icicle_; }

 private:
  ReportPageInput in_;
  HtmlTimeline timeline_;
  HtmlIcicle icicle_;
};

// One side of a diff page: the trace (as compared) and its path.
struct DiffPageSide {
  const Trace* trace = nullptr;
  std::string file;
};

// The diff page: both sides and the diff's JSON. `under` names the scopes the
// diff was restricted to ("" for the whole traces); `outputs`, when given,
// the runs' output checksums compared (diff --outputs), shown first.
void write_diff_page(std::ostream& out, const DiffPageSide& base, const DiffPageSide& next,
                     const TraceDiff& diff, std::string_view under,
                     const OutputDiff* outputs = nullptr);

// "bricklayer (pid 1628 on vm)": the program (or "trace"), its pid and host.
std::string html_page_title(const Trace& trace);

}  // namespace brickprof
