// `brickprof report FILE [--summary --tree --dot ...] [--json] [-o OUT]`:
// reads a saved trace and prints the chosen views (report_views.h).
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "analysis/json_writer.h"
#include "analysis/sink.h"
#include "analysis/trace_json.h"
#include "tools/command.h"
#include "tools/report_views.h"

namespace brickprof::cli {
namespace {

struct ReportOptions {
  std::string file;
  std::string out;
  bool json = false;
  std::map<std::string, bool> chosen;  // by view name
};

void render(const Trace& trace, const std::vector<const ReportView*>& views, bool json,
            std::ostream& out) {
  if (json) {
    // One object, one key per view, so scripts can ask for several at once.
    JsonWriter w(out);
    w.begin_object();
    for (const ReportView* v : views) {
      w.key(v->name);
      v->json(trace, w);
    }
    w.end_object().newline();
    return;
  }
  bool first = true;
  for (const ReportView* v : views) {
    if (!first) out << "\n";
    first = false;
    v->text(trace, out);
  }
}

int report(const ReportOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("report: unexpected arguments after --");
  std::vector<const ReportView*> views;
  for (const ReportView& v : report_views())
    if (o.chosen.at(v.name)) views.push_back(&v);
  if (views.empty())
    for (const ReportView& v : report_views())
      if (v.by_default) views.push_back(&v);
  if (o.json) {
    for (const ReportView* v : views)
      if (!v->json) return fail(std::string("report: --") + v->name + " has no --json form");
  }
  Trace trace;
  try {
    trace = read_trace_file(o.file);
  } catch (const TraceError& e) {
    return fail(e.what());  // already "FILE: problem"
  }
  if (o.out.empty()) {
    render(trace, views, o.json, std::cout);
    std::cout.flush();
    if (!std::cout) return fail("cannot write to standard output");
    return kExitOk;
  }
  std::string error = write_file_atomically(
      o.out, [&](std::ostream& out) { render(trace, views, o.json, out); });
  return error.empty() ? kExitOk : fail(error);
}

}  // namespace

Command add_report_command(CLI::App& parent) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = parent.add_subcommand("report", "Print views of a saved trace (FILE.json)");
  sub->add_option("FILE", o->file, "A brickprof JSON trace")->required();
  for (const ReportView& v : report_views()) {
    bool& flag = o->chosen[v.name];
    std::string help = v.help;
    if (v.by_default) help += " (default)";
    sub->add_flag(std::string("--") + v.name, flag, help);
  }
  sub->add_flag("--json", o->json, "Print the views as one JSON object (summary, tree)");
  sub->add_option("-o,--out", o->out, "Write to this file (atomically) instead of stdout");
  sub->footer("With no view flag: --summary --tree. Exit code 2 on usage errors or bad input.");
  return {sub, [o](const std::vector<std::string>& trailing) { return report(*o, trailing); }};
}

}  // namespace brickprof::cli
