// The registry of report views (see views.h): one line per view.
#include "analysis/views/views.h"

#include "trace/model/printable.h"
#include "trace/model/recorded.h"
#include "trace/output/whole_trace.h"

namespace brickprof {

// Each defined in its analysis/views/view_<name>.cpp.
extern const View kSummaryView;
extern const View kTreeView;
extern const View kCriticalPathView;
extern const View kRooflineView;
extern const View kTransfersView;
extern const View kGpuIdleView;
extern const View kLaunchesView;
extern const View kAnalyzerView;
extern const View kMemoryView;
extern const View kWhatIfView;
extern const View kCollectivesView;
extern const View kRanksView;
extern const View kImbalanceView;
extern const View kRankPathView;
extern const View kNumericsView;
extern const View kTokensView;
extern const View kTilesView;
extern const View kCpuCountersView;
extern const View kGpuMetricsView;

namespace {

// A file format: written by its sink (trace/output/formats.h), nothing to compute.
constexpr View file_format(const char* name, const char* help) {
  View v;
  v.name = name;
  v.help = help;
  v.format = name;
  return v;
}

constexpr View kDotView = file_format("dot", "Graphviz DOT of the execution graph");
constexpr View kChromeView =
    file_format("chrome", "Chrome trace event JSON (Perfetto UI, chrome://tracing)");
constexpr View kPerfettoView = file_format(
    "perfetto", "Perfetto's native protobuf trace (Perfetto UI; binary, best with -o FILE)");
constexpr View kFoldedView =
    file_format("folded", "Collapsed stacks for flame graphs (self time, ns)");

}  // namespace

const std::vector<const View*>& report_views() {
  static const std::vector<const View*> views = {
      &kSummaryView,       // --summary
      &kTreeView,          // --tree
      &kCriticalPathView,  // --critical-path
      &kRooflineView,      // --roofline
      &kTransfersView,     // --transfers
      &kGpuIdleView,       // --gpu-idle
      &kLaunchesView,      // --launches
      &kAnalyzerView,      // --analyze
      &kMemoryView,        // --memory
      &kRanksView,         // --ranks
      &kCollectivesView,   // --collectives
      &kImbalanceView,     // --imbalance
      &kRankPathView,      // --rank-path
      &kNumericsView,      // --numerics
      &kTokensView,        // --tokens
      &kTilesView,         // --tiles
      &kCpuCountersView,   // --cpu-counters
      &kGpuMetricsView,    // --gpu-metrics
      &kDotView,           // --dot
      &kChromeView,        // --chrome
      &kPerfettoView,      // --perfetto
      &kFoldedView,        // --folded
      &kWhatIfView,        // --what-if NAME=K: last, after the path it changes was shown
  };
  return views;
}

const View* find_view(std::string_view name) {
  for (const View* v : report_views())
    if (name == v->name) return v;
  return nullptr;
}

ViewModel compute_view(const View& view, const Trace& trace, const ViewSettings& settings) {
  return view.compute ? view.compute(trace, settings) : ViewModel();
}

void render_view(const View& view, const Trace& trace, const ViewModel& model, bool json,
                 std::ostream& out) {
  if (json && !view.has_json())
    throw ViewError(std::string("--") + view.name + " has no --json form");
  if (view.format) {
    write_format(view.format, trace, out);
  } else if (json) {
    JsonWriter w(out);
    view.json(trace, model, w);
  } else if (recorded_nothing(trace) && &view != &kSummaryView && &view != &kTreeView &&
             !(&view == &kMemoryView && !trace.memory.empty())) {
    // One line, the same in every view; the summary and the tree (also the
    // agent's .tree.txt) say it in their own frame. A program that only
    // allocated (no scope, no GPU work) has its memory to show.
    out << printable(nothing_recorded_line(trace)) << '\n';
  } else {
    view.text(trace, model, out);
  }
}

}  // namespace brickprof
