// The table of `brickprof report` views (see report_views.h).
#include "tools/report_views.h"

#include "analysis/export_chrome.h"
#include "analysis/export_dot.h"
#include "analysis/export_folded.h"
#include "analysis/report_views.h"

namespace brickprof::cli {
namespace {

// The file formats take no settings.
void dot_text(const Trace& t, const ReportSettings&, std::ostream& out) { write_dot(t, out); }
void chrome_text(const Trace& t, const ReportSettings&, std::ostream& out) {
  write_chrome_trace(t, out);
}
void folded_text(const Trace& t, const ReportSettings&, std::ostream& out) { write_folded(t, out); }

}  // namespace

const std::vector<ReportView>& report_views() {
  static const std::vector<ReportView> views = {
      {"summary", "Per-brick and per-category tables, and diagnostics", true, &summary_text,
       &summary_json},
      {"tree", "The aggregated execution tree", true, &tree_text, &tree_json},
      {"critical-path", "Critical path, slack and parallelization opportunities", false,
       &text_of<render_critical_path>, &json_of<render_critical_path>},
      {"roofline", "Per-kernel and per-brick roofline distance", false, &roofline_text,
       &roofline_json},
      {"transfers", "Copies per direction, slow and pageable copies, ping-pong", false,
       &transfers_text, &transfers_json},
      {"gpu-idle",
       "GPU busy and idle time per device: waiting for the host vs issued, the host scopes "
       "waited on, largest gaps",
       false, &text_of<render_gpu_idle>, &json_of<render_gpu_idle>},
      {"launches",
       "Kernel launch statistics: host launch call, launch-to-start delay, launch-bound kernels "
       "(shorter than their launch call), direct vs graph",
       false, &text_of<render_launches>, &json_of<render_launches>},
      {"analyze", "Per-op summary, hotspots, devices, load balance, communication", false,
       &text_of<render_analyzer>, &json_of<render_analyzer>},
      {"dot", "Graphviz DOT of the execution graph", false, &dot_text, nullptr},
      {"chrome", "Chrome trace event JSON (Perfetto UI, chrome://tracing)", false, &chrome_text,
       nullptr},
      {"folded", "Collapsed stacks for flame graphs (self time, ns)", false, &folded_text, nullptr},
  };
  return views;
}

}  // namespace brickprof::cli
