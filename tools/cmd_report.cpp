// `brickprof report FILE [--summary --tree --critical-path ...] [--what-if NAME=K]
// [--under NAME] [--peak-gflops X --peak-gbps X --link-gbps X] [--json] [-o OUT]`:
// reads a saved trace and prints the chosen views (report_views.h), of the
// whole trace or of the subtrees under scopes named NAME
// (analysis/trace_subset.h), against the given peaks (peak_options.h).
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "analysis/dependency_graph.h"
#include "analysis/json_writer.h"
#include "analysis/report_views.h"
#include "analysis/sink.h"
#include "analysis/trace_json.h"
#include "analysis/trace_subset.h"
#include "tools/command.h"
#include "tools/peak_options.h"
#include "tools/report_views.h"

namespace brickprof::cli {
namespace {

struct ReportOptions {
  std::string file;
  std::string out;
  bool json = false;
  std::map<std::string, bool> chosen;  // by view name
  std::vector<std::string> what_if;    // "NAME=K" specs, in command-line order
  std::string under;                   // empty: the whole trace
  PeakOptionText peaks;
};

// What --under kept, said before the views so no figure is mistaken for
// the whole run's.
struct UnderNote {
  std::string name;
  size_t roots = 0, nodes = 0, of_nodes = 0;
};

constexpr const char* kWhatIfKey = "what-if";

// `--json`: one object with one key per view, so scripts can ask for
// several at once. Each view writes its own value; we only add the frame.
void render_json(const Trace& trace, const std::vector<const ReportView*>& views,
                 const ReportSettings& settings, const std::vector<std::string>& what_if,
                 const UnderNote* under, std::ostream& out) {
  bool first = true;
  auto key = [&](const char* name) {
    std::string quoted;
    append_json_string(quoted, name);
    out << (first ? "{\n" : ",\n") << quoted << ':';
    first = false;
  };
  if (under != nullptr) {
    key("under");
    std::string name;
    append_json_string(name, under->name);
    out << "{\"name\":" << name << ",\"scopes\":" << under->roots
        << ",\"nodes\":" << under->nodes << ",\"of_nodes\":" << under->of_nodes << '}';
  }
  for (const ReportView* v : views) {
    key(v->name);
    v->json(trace, settings, out);
  }
  if (!what_if.empty()) {
    key(kWhatIfKey);
    what_if_json(trace, what_if, out);
  }
  out << (first ? "{" : "") << "}\n";
}

void render(const Trace& trace, const std::vector<const ReportView*>& views,
            const ReportSettings& settings, const std::vector<std::string>& what_if,
            const UnderNote* under, bool json, std::ostream& out) {
  if (json) return render_json(trace, views, settings, what_if, under, out);
  bool first = true;
  // Not in front of a file format (--dot, --chrome, --folded) alone.
  bool any_report = !what_if.empty();
  for (const ReportView* v : views) any_report |= v->json != nullptr;
  if (under != nullptr && any_report) {
    out << "Under \"" << under->name << "\": " << under->roots << " scope"
        << (under->roots == 1 ? "" : "s") << ", " << under->nodes << " of " << under->of_nodes
        << " nodes\n\n";
  }
  for (const ReportView* v : views) {
    if (!first) out << "\n";
    first = false;
    v->text(trace, settings, out);
  }
  if (!what_if.empty()) {
    if (!first) out << "\n";
    what_if_text(trace, what_if, out);
  }
}

int report(const ReportOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("report: unexpected arguments after --");
  // Usage errors first, before any (possibly large) trace is read.
  for (const std::string& spec : o.what_if) {
    try {
      parse_what_if_spec(spec);
    } catch (const ViewError& e) {
      return fail(std::string("report: ") + e.what());
    }
  }
  ReportSettings settings;
  if (std::string bad = parse_peak_options(o.peaks, &settings.peaks); !bad.empty())
    return fail("report: " + bad);
  std::vector<const ReportView*> views;
  for (const ReportView& v : report_views())
    if (o.chosen.at(v.name)) views.push_back(&v);
  // --what-if alone is a view choice too: it replaces the defaults.
  if (views.empty() && o.what_if.empty())
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
  std::optional<UnderNote> under;
  if (!o.under.empty()) {
    Subset subset = subtrees_named(trace, o.under);
    if (subset.roots == 0) return fail(o.file + ": no scope named '" + o.under + "' (--under)");
    under = UnderNote{o.under, subset.roots, subset.trace.nodes.size(), trace.nodes.size()};
    trace = std::move(subset.trace);
  }
  // A trace can parse and still have edges that contradict its times (a
  // dependency cycle); that is bad input in FILE, whichever output it hits.
  std::string bad_input;
  auto write = [&](std::ostream& out) {
    try {
      render(trace, views, settings, o.what_if, under ? &*under : nullptr, o.json, out);
    } catch (const GraphError& e) {
      bad_input = o.file + ": " + e.what();
      throw;
    }
  };
  if (!o.out.empty()) {
    std::string error = write_file_atomically(o.out, write);
    if (!bad_input.empty()) return fail(bad_input);
    return error.empty() ? kExitOk : fail(error);
  }
  try {
    write(std::cout);
  } catch (const GraphError&) {
    return fail(bad_input);
  }
  std::cout.flush();
  if (!std::cout) return fail("cannot write to standard output");
  return kExitOk;
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
  sub->add_option("--what-if", o->what_if,
                  "NAME=K: how much shorter the critical path gets if brick, scope or kernel "
                  "NAME ran K times faster (repeatable)")
      ->type_name("NAME=K")
      ->allow_extra_args(false);
  sub->add_option("--under", o->under,
                  "Only what ran under scopes named NAME (e.g. \"decode token\": the steady "
                  "state without prefill and warm-up): those scopes, their nested scopes and "
                  "the GPU work they launched")
      ->type_name("NAME");
  add_peak_options(*sub, o->peaks);
  sub->add_flag("--json", o->json,
                "Print the views as one JSON object, one key per view (not --dot, --chrome, "
                "--folded)");
  sub->add_option("-o,--out", o->out, "Write to this file (atomically) instead of stdout");
  sub->footer(
      "With no view flag (and no --what-if): --summary --tree. Exit code 2 on usage errors or "
      "bad input.");
  return {sub, [o](const std::vector<std::string>& trailing) { return report(*o, trailing); }};
}

}  // namespace brickprof::cli
