// Report views backed by the analyses in analysis/report_views.h: critical
// path and slack, what-if, roofline, transfers, GPU idle, kernel launches
// and the trace analyzer, each as text or as one JSON value.
#include "analysis/report_views.h"

#include "tools/report_views.h"

namespace brickprof::cli {

void critical_path_text(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_critical_path(t, out, false);
}
void critical_path_json(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_critical_path(t, out, true);
}

void roofline_text(const Trace& t, const ReportSettings& s, std::ostream& out) {
  render_roofline(t, s.peaks, out, false);
}
void roofline_json(const Trace& t, const ReportSettings& s, std::ostream& out) {
  render_roofline(t, s.peaks, out, true);
}

void transfers_text(const Trace& t, const ReportSettings& s, std::ostream& out) {
  render_transfers(t, s.peaks, out, false);
}
void transfers_json(const Trace& t, const ReportSettings& s, std::ostream& out) {
  render_transfers(t, s.peaks, out, true);
}

void gpu_idle_text(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_gpu_idle(t, out, false);
}
void gpu_idle_json(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_gpu_idle(t, out, true);
}

void launches_text(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_launches(t, out, false);
}
void launches_json(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_launches(t, out, true);
}

void analyze_text(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_analyzer(t, out, false);
}
void analyze_json(const Trace& t, const ReportSettings&, std::ostream& out) {
  render_analyzer(t, out, true);
}

void what_if_text(const Trace& t, const std::vector<std::string>& specs, std::ostream& out) {
  const DependencyGraph graph = build_dependency_graph(t);
  for (const std::string& spec : specs) render_what_if(t, graph, spec, out, false);
}

void what_if_json(const Trace& t, const std::vector<std::string>& specs, std::ostream& out) {
  const DependencyGraph graph = build_dependency_graph(t);
  out << '[';
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i) out << ',';
    render_what_if(t, graph, specs[i], out, true);
  }
  out << ']';
}

}  // namespace brickprof::cli
