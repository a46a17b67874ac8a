// The HTML report page of a trace as `brickprof report TRACE --html OUT`
// writes it, but with other limits, so the tests can reach the reductions
// (timeline, flame graph, cut lists) with small traces.
//
//   page_with_limits TRACE OUT.html MAX_SLICES MAX_ICICLE MAX_LIST
#include <cstdio>
#include <map>
#include <string>

#include "analysis/html/html_page.h"
#include "analysis/views/views.h"
#include "trace/json/trace_json.h"
#include "trace/output/sink.h"

int main(int argc, char** argv) {
  using namespace brickprof;
  if (argc != 6) {
    std::fprintf(stderr, "usage: page_with_limits TRACE OUT.html MAX_SLICES MAX_ICICLE MAX_LIST\n");
    return 2;
  }
  try {
    const Trace trace = read_trace_file(argv[1]);
    std::map<const View*, ViewModel> models;
    ReportPageInput input;
    input.trace = &trace;
    input.file = argv[1];
    input.limits = {std::stoul(argv[3]), std::stoul(argv[4]), std::stoul(argv[5])};
    for (const View* v : report_views()) {
      if (!shown_on_html_page(*v) || v->value_name) continue;
      input.views.push_back({v, &models.emplace(v, compute_view(*v, trace, {})).first->second});
    }
    const HtmlReportPage page(std::move(input));
    const std::string error =
        write_file_atomically(argv[2], [&](std::ostream& out) { page.write(out); });
    if (error.empty()) return 0;
    std::fprintf(stderr, "page_with_limits: %s\n", error.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "page_with_limits: %s\n", e.what());
  }
  return 2;
}
