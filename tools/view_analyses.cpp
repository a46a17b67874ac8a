// Report views backed by the analyses in analysis/report_views.h: critical
// path and slack, roofline, transfers, and the trace analyzer (text form;
// --json for these is not wired yet).
#include "analysis/report_views.h"
#include "tools/report_views.h"

namespace brickprof::cli {

void critical_path_text(const Trace& t, std::ostream& out) { render_critical_path(t, out, false); }
void roofline_text(const Trace& t, std::ostream& out) {
  render_roofline(t, PeakOverrides{}, out, false);
}
void transfers_text(const Trace& t, std::ostream& out) { render_transfers(t, out, false); }
void analyze_text(const Trace& t, std::ostream& out) { render_analyzer(t, out, false); }

}  // namespace brickprof::cli
