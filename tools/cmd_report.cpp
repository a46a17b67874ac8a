// `brickprof report FILE [--summary --tree --critical-path ...] [--what-if NAME=K]
// [--under NAME] [--python-frames N] [--peak-gflops X --peak-gbps X --link-gbps X] [--json] [-o
// OUT]
// [--html PAGE]`: reads a saved trace and prints the chosen views (the
// registry in analysis/views/views.h: one flag per view), of the whole trace or of
// the subtrees under scopes named NAME (analysis/analyses/trace_subset.h), against
// the given peaks (peak_options.h); --html writes the HTML page of every view
// (analysis/html/html_page.h) and prints only the views named.
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>

#include "analysis/analyses/dependency_graph.h"
#include "analysis/analyses/trace_subset.h"
#include "analysis/html/html_page.h"
#include "analysis/views/job_summary_view.h"
#include "analysis/views/views.h"
#include "tools/command.h"
#include "tools/output_file.h"
#include "tools/peak_options.h"
#include "tools/progress.h"
#include "tools/trace_input.h"
#include "trace/derive/python_frames.h"
#include "trace/json/job_summary_json.h"
#include "trace/json/json_writer.h"
#include "trace/json/trace_json.h"
#include "trace/model/printable.h"
#include "trace/model/recorded.h"
#include "trace/output/sink.h"

namespace brickprof::cli {
namespace {

struct ReportOptions {
  std::string file;
  std::string out;
  bool json = false;
  std::map<std::string, bool> chosen;                      // switch views, by name
  std::map<std::string, std::vector<std::string>> values;  // views taking values, by name
  std::string under;                                       // empty: the whole trace
  uint32_t python_frames = kDefaultPythonFrames;  // frames that group GPU work outside scopes
  PeakOptionText peaks;
  std::string html;  // the HTML page to write, if any
  bool quiet = false;
};

// What --under kept, said before the views so no figure is mistaken for
// the whole run's.
struct UnderNote {
  std::string name;
  size_t roots = 0, nodes = 0, of_nodes = 0;
};

// The JSON key "under" (in --json and on the HTML page).
std::string under_json(const UnderNote& under) {
  std::string out = "{\"name\":";
  append_json_string(out, under.name);
  out += ",\"scopes\":" + std::to_string(under.roots) +
         ",\"nodes\":" + std::to_string(under.nodes) +
         ",\"of_nodes\":" + std::to_string(under.of_nodes) + '}';
  return out;
}

// The models of the printed views, in their order.
using Models = std::vector<const ViewModel*>;

// `--json`: one object with one key per view, so scripts can ask for
// several at once. Each view writes its own value; we only add the frame.
void render_json(const Trace& trace, const std::vector<const View*>& views, const Models& models,
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
    out << under_json(*under);
  }
  for (size_t i = 0; i < views.size(); ++i) {
    key(views[i]->name);
    render_view(*views[i], trace, *models[i], true, out);
  }
  out << (first ? "{" : "") << "}\n";
}

void render_text(const Trace& trace, const std::vector<const View*>& views, const Models& models,
                 const UnderNote* under, std::ostream& out) {
  // Not in front of a file format (--dot, --chrome, --folded) alone.
  bool any_report = false;
  for (const View* v : views) any_report |= v->has_json();
  if (under != nullptr && any_report) {
    out << "Under \"" << printable(under->name) << "\": " << under->roots << " scope"
        << (under->roots == 1 ? "" : "s") << ", " << under->nodes << " of " << under->of_nodes
        << " nodes\n\n";
  }
  for (size_t i = 0; i < views.size(); ++i) {
    if (i) out << "\n";
    render_view(*views[i], trace, *models[i], false, out);
  }
}

// A file format (--dot, --chrome, --perfetto, --folded) is a file of its
// own: never two formats, or a format and text, in one output; and binary
// bytes never go to a terminal. "" or the problem.
std::string output_problem(const std::vector<const View*>& views, const std::string& out) {
  const View* format = nullptr;
  for (const View* v : views)
    if (v->format != nullptr) format = v;
  if (format != nullptr && views.size() > 1) {
    std::string names;
    for (size_t i = 0; i < views.size(); ++i)
      names += std::string(i == 0                  ? ""
                           : i + 1 == views.size() ? " and "
                                                   : ", ") +
               "--" + views[i]->name;
    return names + " cannot share one output: --" + format->name +
           " is a file format of its own. Write one at a time (-o FILE each), or have run "
           "write several (run --formats json,chrome,dot)";
  }
  if (format != nullptr && std::string_view(format->format) == "perfetto" && out.empty())
    return binary_to_terminal_problem("--perfetto");
  return "";
}

// The views named on the command line, in the registry's order; a view
// that takes values (--what-if) adds them to `settings`, and throws
// ViewError on a bad one.
std::vector<const View*> chosen_views(const ReportOptions& o, ViewSettings& settings) {
  std::vector<const View*> views;
  for (const View* v : report_views()) {
    if (!v->value_name) {
      if (o.chosen.at(v->name)) views.push_back(v);
      continue;
    }
    const std::vector<std::string>& values = o.values.at(v->name);
    for (const std::string& value : values) v->add_value(value, settings);
    if (!values.empty()) views.push_back(v);
  }
  return views;
}

// The views --html puts on its page: every one the page shows, a view
// that takes values only when given some.
std::vector<const View*> page_views(const ReportOptions& o) {
  std::vector<const View*> views;
  if (o.html.empty()) return views;
  for (const View* v : report_views())
    if (shown_on_html_page(*v) && (!v->value_name || !o.values.at(v->name).empty()))
      views.push_back(v);
  return views;
}

// "" or the first view --json cannot print.
std::string check_json_forms(const ReportOptions& o, const std::vector<const View*>& views) {
  if (o.json)
    for (const View* v : views)
      if (!v->has_json()) return std::string("--") + v->name + " has no --json form";
  return "";
}

std::string out_of_memory(const ReportOptions& o) {
  return o.file + ": out of memory: the trace is too large for these views here";
}

// What the report prints and pages from: the trace (cut by --under) and
// each view computed once, whether printed, on the page or both.
struct ReportModels {
  Trace trace;
  std::optional<UnderNote> under;
  std::map<const View*, ViewModel> computed;
  std::optional<HtmlReportPage> page;  // points into trace and computed
};

// Reads the trace and computes every model before any output, so bad
// input (edges that contradict the times: a dependency cycle) or a trace
// too big for the memory stops the report with one line and nothing
// printed. "" or that line. `views` loses the default --tree when the
// trace recorded nothing; `settings` learns that --under cut the trace.
std::string compute_report(const ReportOptions& o, ViewSettings& settings, bool defaults,
                           std::vector<const View*>& views, const std::vector<const View*>& on_page,
                           Progress& progress, ReportModels& r) {
  try {
    r.trace = read_trace_input(o.file, progress.reading(o.file));
    // Before --under, which may name a frame; for the page too.
    group_by_python_frames(r.trace, o.python_frames);
    if (!o.under.empty()) {
      Subset subset = subtrees_named(r.trace, o.under);
      if (subset.roots == 0) return o.file + ": " + no_scope_named(r.trace, o.under);
      r.under = UnderNote{o.under, subset.roots, subset.trace.nodes.size(), r.trace.nodes.size()};
      settings.whole_trace = false;
      r.trace = std::move(subset.trace);
    }
    // The summary says it; the tree would say "nothing recorded" again.
    if (defaults && recorded_nothing(r.trace)) std::erase(views, find_view("tree"));
    for (const std::vector<const View*>* list : {&std::as_const(views), &on_page})
      for (const View* v : *list)
        if (!r.computed.count(v)) {
          progress.step(std::string("computing --") + v->name);
          r.computed.emplace(v, compute_view(*v, r.trace, settings));
        }
    if (!o.html.empty()) {
      ReportPageInput input;
      input.trace = &r.trace;
      input.file = o.file;
      if (r.under) input.under_json = under_json(*r.under);
      for (const View* v : on_page) input.views.push_back({v, &r.computed.at(v)});
      r.page.emplace(std::move(input));
    }
  } catch (const TraceError& e) {
    return e.what();  // already "FILE: problem"
  } catch (const GraphError& e) {
    return o.file + ": " + e.what();
  } catch (const ViewError& e) {  // a name the trace does not have (--what-if)
    return o.file + ": " + e.what();
  } catch (const std::bad_alloc&) {
    return out_of_memory(o);
  }
  return "";
}

// Writes --html's page; "" or why it could not.
std::string write_page(const ReportOptions& o, const HtmlReportPage& page) {
  std::string error = write_file_atomically(o.html, [&](std::ostream& out) {
    try {
      page.write(out);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error("out of memory writing the page of " + o.file);
    }
  });
  if (error.empty()) say_written(o.html);
  return error;
}

// Prints the views, as text or --json, to stdout or -o's file.
int print_views(const ReportOptions& o, const std::vector<const View*>& views,
                const ReportModels& r) {
  Models models;
  for (const View* v : views) models.push_back(&r.computed.at(v));
  auto write = [&](std::ostream& out) {
    const UnderNote* note = r.under ? &*r.under : nullptr;
    try {
      if (o.json)
        render_json(r.trace, views, models, note, out);
      else
        render_text(r.trace, views, models, note, out);
    } catch (const std::bad_alloc&) {
      throw std::runtime_error(out_of_memory(o));  // a file format's own structures
    }
  };
  return write_output(o.out, write);
}

// A job summary (brickprof-job/1) has one view, the whole summary: the
// views of a trace need the trace. --summary, --ranks and --collectives
// name parts of it and print it too.
int report_job(const ReportOptions& o) {
  for (const auto& [name, on] : o.chosen)
    if (on && name != "summary" && name != "ranks" && name != "collectives")
      return fail("report: " + o.file + " is an MPI job's summary (brickprof-job/1): --" + name +
                  " needs a trace (the ranks' traces beside it, or their merge)");
  for (const auto& [name, values] : o.values)
    if (!values.empty()) return fail("report: --" + name + " needs a trace, not a job summary");
  if (!o.under.empty() || !o.html.empty())
    return fail("report: --under and --html need a trace, not a job summary");
  JobSummary job;
  try {
    job = read_job_summary_file(o.file);
  } catch (const TraceError& e) {
    return fail(e.what());
  }
  const JobFigures figures = job_figures(job);
  return write_output(o.out, [&](std::ostream& out) {
    if (o.json)
      job_summary_json(job, figures, out);
    else
      job_summary_text(job, figures, out);
  });
}

int report(const ReportOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("report: unexpected arguments after --");
  if (is_job_summary_file(o.file)) return report_job(o);
  // Usage errors first, before any (possibly large) trace is read.
  if (o.python_frames > 256) return fail("report: --python-frames is 0 to 256");
  ViewSettings settings;
  std::vector<const View*> views;
  try {
    views = chosen_views(o, settings);
  } catch (const ViewError& e) {
    return fail(std::string("report: ") + e.what());
  }
  if (std::string bad = parse_peak_options(o.peaks, &settings.peaks); !bad.empty())
    return fail("report: " + bad);
  // With --html, only the views named are printed (--json or -o alone: the
  // defaults); the page shows them all.
  const bool print = o.html.empty() || !views.empty() || o.json || !o.out.empty();
  // A view that takes values (--what-if) is a choice too: it replaces the defaults.
  const bool defaults = views.empty() && print;
  if (defaults)
    for (const View* v : report_views())
      if (v->by_default) views.push_back(v);
  if (std::string problem = check_json_forms(o, views); !problem.empty())
    return fail("report: " + problem);
  if (std::string problem = output_problem(views, o.out); !problem.empty())
    return fail("report: " + problem);
  ReportModels r;
  Progress progress(progress_wanted(o.quiet), std::cerr);
  const std::string error =
      compute_report(o, settings, defaults, views, page_views(o), progress, r);
  progress.done();  // before the output, which may go to the same terminal
  if (!error.empty()) return fail(error);
  if (r.page) {
    if (std::string bad = write_page(o, *r.page); !bad.empty()) return fail(bad);
    if (!print) return kExitOk;
  }
  return print_views(o, views, r);
}

// report --help's groups. The cross-rank views read a merged trace.
constexpr const char* kViews = "Views (with none: --summary --tree)";
constexpr const char* kMultiRank = "Multi-rank views (of a merged trace: brickprof merge)";
constexpr const char* kScope = "What the views cover";
constexpr const char* kExports = "Exports (file formats, one at a time)";
constexpr const char* kOutput = "Output";

const char* group_of(const View& v) {
  static constexpr std::string_view kCrossRank[] = {"ranks", "collectives", "imbalance",
                                                    "rank-path"};
  if (v.format != nullptr) return kExports;
  for (std::string_view name : kCrossRank)
    if (name == v.name) return kMultiRank;
  return kViews;
}

}  // namespace

Command add_report_command(CLI::App& parent) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App* sub = parent.add_subcommand("report", "Print views of a saved trace");
  sub->add_option("FILE", o->file,
                  "A brickprof trace (.json or .json.gz, as run wrote it), or an MPI job's "
                  "summary (<prefix>-job.json: its per-rank table, bricks, kernels and "
                  "collectives)")
      ->required();
  for (const char* group : {kViews, kMultiRank, kExports}) {
    for (const View* v : report_views()) {
      if (group_of(*v) != group) continue;
      const std::string flag = std::string("--") + v->name;
      if (v->value_name) {
        sub->add_option(flag, o->values[v->name], v->help)
            ->type_name(v->value_name)
            ->allow_extra_args(false)
            ->group(group);
        continue;
      }
      std::string help = v->help;
      if (v->by_default) help += " (default)";
      sub->add_flag(flag, o->chosen[v->name], help)->group(group);
    }
  }
  sub->add_option("--under", o->under,
                  "Only what ran under scopes named NAME (e.g. \"decode token\": the steady "
                  "state without prefill and warm-up): those scopes, their nested scopes and "
                  "the GPU work they launched; NAME is exact (case matters), and one no scope "
                  "has is exit 2 with the closest names")
      ->type_name("NAME")
      ->group(kScope);
  sub->add_option("--python-frames", o->python_frames,
                  "GPU work launched outside every scope goes under the innermost N Python "
                  "frames that launched it (\"model.py:212 forward\"), when the trace has "
                  "them, in every view and the page; 0 to 256, 0: left at the top (default 1)")
      ->type_name("N")
      ->group(kScope);
  add_peak_options(*sub, o->peaks);
  for (const char* peak : {"--peak-gflops", "--peak-gbps", "--link-gbps"})
    sub->get_option(peak)->group(kScope);
  sub->add_flag("--json", o->json,
                "Print the views as one JSON object, one key per view (not the file formats)")
      ->group(kOutput);
  sub->add_option("-o,--output", o->out, "Write to FILE (atomically) instead of stdout")
      ->type_name("FILE")
      ->group(kOutput);
  sub->add_option("--out", o->out)->group("");  // the earlier spelling, not listed
  sub->add_option("--html", o->html,
                  "Write the HTML report page of every view (timeline, flame graph, roofline, "
                  "...) to this file: one self-contained file for a browser; prints only the "
                  "views named")
      ->type_name("PAGE")
      ->group(kOutput);
  add_quiet_flag(*sub, o->quiet);
  sub->footer(
      "With no view flag (and no --what-if): --summary --tree (--summary alone for a trace that "
      "recorded nothing), or with --html nothing. Exit code 2 on usage errors or bad input.\n"
      "Examples:\n"
      "  brickprof report trace.json\n"
      "  brickprof report trace.json --under \"decode token\" --critical-path --roofline\n"
      "  brickprof report trace.json --perfetto -o trace.pftrace");
  return {sub, [o](const std::vector<std::string>& trailing) { return report(*o, trailing); }};
}

}  // namespace brickprof::cli
