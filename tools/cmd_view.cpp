// `brickprof view FILE [BASE] [--under NAME] [--python-frames N] [--ascii] [--quiet]
// [--peak-gflops X ...]`:
// the full-screen terminal browser (tools/view/): the aggregate tree with a
// detail pane, and every report view one key away. Everything that can go
// wrong before the screen is taken (not a terminal, an unknown terminal
// type, a bad trace, a scope that does not exist) is one line on stderr
// and exit 2, with the terminal untouched.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

#include "analysis/analyses/trace_subset.h"
#include "analysis/views/job_summary_view.h"
#include "tools/command.h"
#include "tools/peak_options.h"
#include "tools/progress.h"
#include "tools/trace_input.h"
#include "tools/view/browser.h"
#include "tools/view/job_pager.h"
#include "tools/view/keys.h"
#include "tools/view/layout.h"
#include "tools/view/session.h"
#include "tools/view/terminal.h"
#include "trace/derive/python_frames.h"
#include "trace/json/job_summary_json.h"
#include "trace/json/trace_json.h"

namespace brickprof::cli {
namespace {

// A tree built in this time is shown on the first screen; a longer build
// shows the summary first (Session::start_tree).
constexpr auto kTreeGrace = std::chrono::milliseconds(50);
constexpr int kTreePollMs = 100;

struct ViewOptions {
  std::string file;
  std::string base;
  std::string under;
  uint32_t python_frames = kDefaultPythonFrames;  // frames that group GPU work outside scopes
  bool ascii = false;
  bool quiet = false;
  PeakOptionText peaks;
};

// Draws until the user quits. A frame that must first compute a model is
// drawn twice: once saying what is being computed, once with it.
void browse(view::Session& session, bool ascii) {
  view::Terminal terminal(ascii);
  view::Browser browser(session, terminal.width(), terminal.height());
  auto frame = [&] {
    if (!browser.pending().empty()) {
      view::Canvas waiting(terminal.width(), terminal.height(), terminal.ascii());
      browser.draw(waiting, false);
      terminal.draw(waiting);
    }
    view::Canvas canvas(terminal.width(), terminal.height(), terminal.ascii());
    browser.draw(canvas, true);
    terminal.draw(canvas);
  };
  frame();
  while (!browser.done()) {
    // While the tree is built, look every so often whether it is there.
    const bool waiting = !session.tree_ready();
    const int key = terminal.read_key(waiting ? kTreePollMs : -1);
    if (key == view::key::kCtrlL) terminal.repaint();
    browser.key(key);
    if (!browser.done() && (key != view::key::kNone || waiting)) frame();
  }
}

// A job summary: its text, scrolled (view/job_pager.h).
int view_job(const ViewOptions& o) {
  if (!o.base.empty() || !o.under.empty())
    return fail("view: BASE and --under need traces, not a job summary");
  std::ostringstream text;
  try {
    const JobSummary job = read_job_summary_file(o.file);
    job_summary_text(job, job_figures(job), text);
  } catch (const TraceError& e) {
    return fail(e.what());
  }
  view::JobPager pager(text.str(), o.file);
  view::Terminal terminal(o.ascii);
  while (!pager.done()) {
    view::Canvas canvas(terminal.width(), terminal.height(), terminal.ascii());
    pager.draw(canvas);
    terminal.draw(canvas);
    const int key = terminal.read_key();
    if (key == view::key::kCtrlL) terminal.repaint();
    pager.key(key, terminal.height());
  }
  return kExitOk;
}

int run_view(const ViewOptions& o, const std::vector<std::string>& trailing) {
  if (!trailing.empty()) return fail("view: unexpected arguments after --");
  if (o.python_frames > 256) return fail("view: --python-frames is 0 to 256");
  PeakOverrides peaks;
  if (std::string bad = parse_peak_options(o.peaks, &peaks); !bad.empty())
    return fail("view: " + bad);
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
    return fail("view: needs a terminal on stdin and stdout (for text, use brickprof report " +
                o.file + ")");
  if (std::string problem = view::terminal_problem(); !problem.empty())
    return fail("view: " + problem + " (try TERM=xterm-256color, or brickprof report)");
  if (is_job_summary_file(o.file)) return view_job(o);
  std::optional<view::Session> session;
  {
    Progress progress(progress_wanted(o.quiet), std::cerr);
    const bool two = !o.base.empty();
    try {
      Trace trace = read_trace_input(o.file, progress.reading(o.file, two ? "1 of 2" : ""));
      std::optional<Trace> base;
      if (two) base = read_trace_input(o.base, progress.reading(o.base, "2 of 2"));
      // As `report` groups them, before --under (which may name a frame).
      group_by_python_frames(trace, o.python_frames);
      if (base) group_by_python_frames(*base, o.python_frames);
      session.emplace(std::move(trace), o.file, std::move(base), o.base);
      session->set_peaks(peaks);
      if (!o.under.empty() && !session->set_under(o.under)) {
        progress.done();
        return fail(o.file + ": " + no_scope_named(session->whole(), o.under));
      }
      session->start_tree();
      session->wait_tree(kTreeGrace);
    } catch (const TraceError& e) {
      progress.done();
      return fail(e.what());  // already "FILE: problem"
    } catch (const std::bad_alloc&) {
      progress.done();
      return fail(o.file + ": out of memory: the trace is too large for the browser here");
    }
  }
  browse(*session, o.ascii);
  return kExitOk;
}

}  // namespace

Command add_view_command(CLI::App& parent) {
  auto o = std::make_shared<ViewOptions>();
  CLI::App* sub = parent.add_subcommand(
      "view", "Browse a trace in the terminal: the tree, a detail pane and every report view");
  sub->add_option("FILE", o->file,
                  "A brickprof JSON trace, or an MPI job's summary (<prefix>-job.json)")
      ->required();
  sub->add_option("BASE", o->base,
                  "A reference trace: the tree then shows each brick's and kernel's change "
                  "against it (as brickprof diff BASE FILE)");
  sub->add_option("--under", o->under,
                  "Start with only what ran under scopes named NAME (u and U change it)")
      ->type_name("NAME");
  sub->add_option("--python-frames", o->python_frames,
                  "GPU work launched outside every scope goes under the innermost N Python "
                  "frames that launched it, as in brickprof report; 0 to 256, 0: left at the "
                  "top (default 1)")
      ->type_name("N");
  sub->add_flag("--ascii", o->ascii,
                "Plain ASCII characters and no colour, for terminals without UTF-8 or colour");
  add_quiet_flag(*sub, o->quiet);
  add_peak_options(*sub, o->peaks);
  sub->footer(
      "Keys: ? help, q quit, 1-9 views, j/k/arrows move, h/l/Enter collapse and expand, / search, "
      "d detail pane, s sort, S slowest, c/C critical path, u under, w what-if, r rank. Needs a "
      "terminal of at least " +
      std::to_string(view::kMinWidth) + "x" + std::to_string(view::kMinHeight) +
      ". Exit code 2 when stdin or stdout is not a terminal, or on bad input.\n"
      "Examples:\n"
      "  brickprof view trace.json\n"
      "  brickprof view new.json base.json --under \"decode token\"");
  return {sub, [o](const std::vector<std::string>& trailing) { return run_view(*o, trailing); }};
}

}  // namespace brickprof::cli
