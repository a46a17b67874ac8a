// Report views backed by the analyses in analysis/report_views.h that take
// settings (roofline, transfers) or an argument (what-if); those that take
// neither are rows of report_views() through text_of/json_of.
#include "analysis/report_views.h"

#include "tools/report_views.h"

namespace brickprof::cli {

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
