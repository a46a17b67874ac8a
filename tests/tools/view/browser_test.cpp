// The browser driven by keys as a person would, its screen read back as
// text: every figure it shows must be the one the analyses compute.
#include "tools/view/browser.h"

#include <gtest/gtest.h>

#include "analysis/analyses/critical_path.h"
#include "analysis/analyses/dependency_graph.h"
#include "analysis/analyses/spread.h"
#include "analysis/analyses/trace_merge.h"
#include "analysis/analyses/trace_subset.h"
#include "tools/view/keys.h"
#include "tools/view/ranks.h"
#include "tools/view/roofline_plot.h"
#include "trace/model/format.h"
#include "view_test_util.h"

namespace brickprof::view::test {
namespace {

constexpr const char* kGpu = "gpu/bricklayer-graph.json";

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(Browser, FirstScreen) {
  Screen s(kGpu);
  const Canvas c = s.draw();
  EXPECT_TRUE(contains(c.row(0), "brickprof view  bricklayer (pid 1628 on vm)")) << c.row(0);
  EXPECT_TRUE(contains(c.row(1), "1 Tree  2 Summary  3 Critical path  4 Roofline"));
  EXPECT_TRUE(contains(c.row(2), "Name")) << c.row(2);
  EXPECT_TRUE(contains(c.row(2), "Count     Total       Avg       GPU  %Parent"));
  EXPECT_TRUE(contains(c.row(3), "memset 2.6MiB"));
  EXPECT_EQ(s.row_with("▾ decode token") > 0, true) << c.text();  // expanded to fit
  EXPECT_TRUE(contains(c.row(39), "?Help"));
  EXPECT_TRUE(c.at(0, 3).selected);  // the first row is selected
}

// start_tree() builds on another thread: until it is done the tree tab
// shows the summary and keys that need the tree say so; then the tree.
TEST(Browser, TreeBuiltOnItsOwnThread) {
  Session session(read_trace_file(data(kGpu)), kGpu);
  session.start_tree();
  Browser browser(session, 120, 40);
  Canvas first(120, 40, false);
  browser.draw(first);
  const std::string text = first.text();
  EXPECT_TRUE(contains(text, "Building the tree of 391 nodes") || contains(text, "▾ decode token"))
      << text;
  if (contains(text, "Building the tree")) {
    EXPECT_TRUE(contains(text, "Per-brick timing ("));
    browser.key('j');
    // Unless it got ready in between (it never becomes unready).
    if (browser.message().empty())
      EXPECT_TRUE(session.tree_ready());
    else
      EXPECT_EQ(browser.message(), "the tree is still being built: a moment");
  }
  ASSERT_TRUE(session.wait_tree(std::chrono::seconds(60)));
  Canvas then(120, 40, false);
  browser.draw(then);
  EXPECT_TRUE(contains(then.text(), "▾ decode token")) << then.text();
}

TEST(Browser, MovesExpandsAndCollapsesWithViKeysAndArrows) {
  Screen s("tree_small.json");  // small enough to open whole
  EXPECT_TRUE(contains(s.selected(), "▾ Layer 0"));
  s.keys("h");
  EXPECT_TRUE(contains(s.selected(), "▸ Layer 0"));
  s.keys("l");
  EXPECT_TRUE(contains(s.selected(), "▾ Layer 0"));
  s.keys("j");
  EXPECT_TRUE(contains(s.selected(), "├─▾ RmsNorm")) << s.text();
  s.keys("h");
  EXPECT_TRUE(contains(s.selected(), "├─▸ RmsNorm")) << s.text();
  s.key(key::kRight).key(key::kRight);  // expand, then into the first child
  EXPECT_TRUE(contains(s.selected(), "│ └── rmsnorm_kernel <<<16,256>>> smem 1.0KiB")) << s.text();
  s.keys("h");  // a leaf: to its parent
  EXPECT_TRUE(contains(s.selected(), "├─▾ RmsNorm")) << s.text();
  s.key(key::kLeft).key(key::kLeft);  // collapse it, then to its parent
  EXPECT_TRUE(contains(s.selected(), "▾ Layer 0"));
  s.key(key::kEnter);
  EXPECT_TRUE(contains(s.selected(), "▸ Layer 0"));
  s.keys("G");  // the last row: the run's time outside every scope
  EXPECT_TRUE(contains(s.selected(), "  (outside every scope)")) << s.text();
  s.keys("k");
  EXPECT_TRUE(contains(s.selected(), "└── custom \"quoted\" ; name")) << s.text();
  s.keys("g").key(key::kPageDown);
  EXPECT_TRUE(contains(s.selected(), "(outside every scope)"));
  s.keys("kk");
  EXPECT_TRUE(contains(s.selected(), "├── RmsNorm"));
}

TEST(Browser, AsciiTreeLinesAsHtopDrawsThem) {
  Screen s("tree_small.json", 120, 40, true);
  s.keys("jh");
  const std::string text = s.text();
  for (const char* line : {"- Layer 0", "|-+ RmsNorm", "|-- QkvProjection",
                           "| |-  batched_q4k_gemv <<<32,256>>> smem 4.0KiB", "|-  H2D 4.0MiB",
                           "`-  cuStreamSynchronize", "- Layer 1"})
    EXPECT_TRUE(contains(text, line)) << line << "\n" << text;
}

TEST(Browser, SearchFindsInsideCollapsedSubtreesAndWraps) {
  Screen s("tree_small.json");
  s.keys("/attention\n");
  EXPECT_TRUE(contains(s.selected(), "attention<float, 128>")) << s.text();
  const int y = s.row_with("attention<float, 128>");
  EXPECT_EQ(s.draw().at(s.draw().row(y).find("attention") > 0 ? 8 : 0, y).style, Style::kMatch)
      << s.draw().row(y);
  s.keys("/Norm\n");  // smart case
  EXPECT_TRUE(contains(s.selected(), "RmsNorm"));
  s.keys("n");  // the second Layer 1's RmsNorm
  const std::string second = s.selected();
  EXPECT_TRUE(contains(second, "RmsNorm"));
  EXPECT_NE(s.row_with("Layer 1"), -1);
  s.keys("nN");
  EXPECT_EQ(s.selected(), second);
  s.keys("/no such thing\n");
  EXPECT_EQ(s.browser->message(), "no match for 'no such thing'");
}

TEST(Browser, EscapeCancelsASearchWhereItStarted) {
  Screen s("tree_small.json");
  s.keys("j");
  const std::string before = s.selected();
  s.keys("/attention");  // moves as typed
  EXPECT_TRUE(contains(s.selected(), "attention<float, 128>"));
  s.key(key::kEscape);
  EXPECT_EQ(s.selected(), before);
}

TEST(Browser, NamesTooLongForTheColumnEndInAnEllipsis) {
  Screen s("tree_small.json", 60, 20);
  const int y = s.row_with("attention");
  ASSERT_GT(y, 0) << s.text();
  EXPECT_TRUE(contains(s.draw().row(y), "…")) << s.draw().row(y);
}

TEST(Browser, SortCyclesColumnsAndSaysSo) {
  Screen s("tree_small.json");
  s.keys("s");
  EXPECT_EQ(s.browser->message(), "sorted by total");
  EXPECT_TRUE(contains(s.draw().row(2), "Total▼"));
  // (outside every scope), 2.17ms, first; QkvProjection first under Layer 0.
  EXPECT_EQ(s.row_with("(outside every scope)"), 3);
  EXPECT_EQ(s.row_with("QkvProjection"), 5);
  s.keys("I");
  EXPECT_EQ(s.browser->message(), "sorted by total, inverted");
  EXPECT_TRUE(contains(s.draw().row(2), "Total▲"));
}

TEST(Browser, SlowestKernelAndTheCriticalPathAreOneKeyAway) {
  Screen s(kGpu);
  s.keys("S");
  EXPECT_EQ(s.browser->message(), "slowest kernel launch: bl_gemv_q4k 13.1µs");
  EXPECT_TRUE(contains(s.selected(), "bl_gemv_q4k <<<1024×4×1,256>>>")) << s.text();
  s.keys("gc");
  EXPECT_TRUE(contains(s.browser->message(), "critical path step ")) << s.browser->message();
  const std::string first = s.selected();
  s.keys("c");
  EXPECT_NE(s.selected(), first);
  s.keys("C");
  EXPECT_EQ(s.selected(), first);
}

TEST(Browser, DetailPaneShowsTheModelsFigures) {
  Screen s(kGpu);
  s.keys("S").keys("d");
  const std::string text = s.text();
  // The spread of one call over the entry's launches.
  Session& session = *s.session;
  BrowseTree& tree = session.tree();
  const uint32_t row = tree.visible()[tree.visible_index(tree.row_of_node(
      std::any_cast<const TraceSummary&>(*session.model("summary")).slowest_kernel->kernel))];
  std::vector<int64_t> d;
  for (uint32_t m : tree.members(row)) d.push_back(session.trace().nodes[m].duration_ns());
  const Spread spread = spread_of(d);
  EXPECT_TRUE(contains(text, "one call      min " + format_duration(spread.min_ns) + "  median " +
                                 format_duration(spread.median_ns)))
      << text;
  EXPECT_TRUE(contains(text, "Detail"));
  EXPECT_TRUE(contains(text, "roofline      "));
  EXPECT_TRUE(contains(text, "memory-bound"));
  EXPECT_TRUE(contains(text, "critical path "));
  EXPECT_TRUE(contains(text, "PTX           0x7a1747aa337a71ca  ptx, 98.2KiB, 13 kernels"));
  EXPECT_TRUE(contains(text, "start delay median"));
}

TEST(Browser, PtxTextInTheDetailPane) {
  Screen s("ptx_source.json");
  s.keys("/add_one\n").keys("l").keys("j").key(key::kEnter);  // Enter on a leaf: its details
  EXPECT_TRUE(contains(s.selected(), "PTX 0x00000000000000a1")) << s.text();
  const std::string text = s.text();
  EXPECT_TRUE(contains(text, ".visible .entry add_one(")) << text;
  EXPECT_TRUE(contains(text, "        .param .u64 add_one_param_0")) << text;  // tab expanded
  s.keys("JJJ");                                                               // scrolls
  EXPECT_FALSE(contains(s.text(), "PTX module of add_one")) << s.text();
}

TEST(Browser, CriticalPathPaneAndBackToTheTree) {
  Screen s(kGpu);
  s.keys("3");
  const std::string text = s.text();
  const CriticalPathReport* cp = s.session->critical_path();
  ASSERT_NE(cp, nullptr);
  EXPECT_TRUE(contains(text, "Critical path " + format_duration(cp->path.length_ns) + " over " +
                                 std::to_string(cp->path.steps.size()) + " steps"))
      << text;
  s.keys("jjjj");  // step 5: Embedding in prefill
  const uint32_t node = cp->path.steps[4].node;
  s.key(key::kEnter);
  EXPECT_EQ(s.browser->tab(), 0u);
  BrowseTree& tree = s.session->tree();
  EXPECT_TRUE(contains(s.selected(), tree.label(tree.row_of_node(node)))) << s.text();
}

TEST(Browser, WhatIfShowsTheNewPathLength) {
  Screen s(kGpu);
  s.keys("/GateProjection\n").keys("w");
  EXPECT_TRUE(contains(s.draw().row(39), "what if GateProjection ran K times faster? K = 2"));
  s.key(key::kBackspace).keys("4\n");
  const Trace& t = s.session->trace();
  const WhatIf expected = what_if(t, build_dependency_graph(t), "GateProjection", 4);
  EXPECT_EQ(s.browser->message(), "what-if GateProjection 4x faster: critical path " +
                                      format_duration(expected.before_ns) + " → " +
                                      format_duration(expected.after_ns) + " (−" +
                                      format_duration(expected.saved_ns()) + ", −" +
                                      format_share(static_cast<double>(expected.saved_ns()),
                                                   static_cast<double>(expected.before_ns)) +
                                      ")");
  s.keys("3");  // and in the critical-path pane, as report --what-if writes it
  EXPECT_TRUE(contains(s.text(), "What-if: GateProjection 4x faster shortens the run by " +
                                     format_duration(expected.saved_ns())))
      << s.text();
  s.keys("W");
  EXPECT_TRUE(contains(s.text(), "what if it ran K times faster?"));
  s.keys("1/GateProjection\nw").key(key::kBackspace).keys("x\n");
  EXPECT_EQ(s.browser->message(), "K must be a positive number, such as 2 or 1.5");
}

TEST(Browser, UnderRestrictsEveryPaneAndClears) {
  Screen s(kGpu);
  const BrowseTree* whole_tree = &s.session->tree();
  s.keys("/decode token\n").keys("u");
  EXPECT_TRUE(contains(s.draw().row(39), "under scopes named: decode token"));
  s.key(key::kEnter);
  const Subset expected = subtrees_named(s.session->whole(), "decode token");
  EXPECT_EQ(s.session->trace().nodes.size(), expected.trace.nodes.size());
  EXPECT_TRUE(contains(
      s.draw().row(0),
      "[under \"decode token\": " + std::to_string(expected.trace.nodes.size()) + " nodes]"));
  EXPECT_EQ(s.row_with("prefill"), -1);
  s.keys("2");
  EXPECT_TRUE(contains(s.text(), "Under \"decode token\": 4 scopes"));
  s.keys("U");
  EXPECT_EQ(s.session->trace().nodes.size(), s.session->whole().nodes.size());
  EXPECT_EQ(&s.session->tree(), whole_tree);  // kept, not built again
  s.keys("1u").key(key::kCtrlU).keys("nothing\n");
  EXPECT_EQ(s.browser->message(), "no scope named 'nothing' (--under)");  // as the CLI says
  // Tab completes from the scope names.
  s.keys("u").key(key::kCtrlU).keys("deco").key(key::kTab);
  EXPECT_TRUE(contains(s.draw().row(39), "under scopes named: decode token"));
}

TEST(Browser, RanksOfAMergedTrace) {
  Screen s("analyses/merged.json");
  EXPECT_TRUE(contains(s.draw().row(1), "9 Ranks"));
  s.keys("r");
  EXPECT_TRUE(contains(s.draw().row(0), "[rank 0]"));
  EXPECT_EQ(s.session->trace().nodes.size(),
            source_subset(s.session->whole(), 0).trace.nodes.size());
  s.keys("r");
  EXPECT_TRUE(contains(s.draw().row(0), "[rank 0 #2]"));
  s.keys("r");
  EXPECT_EQ(s.browser->message(), "all 2 ranks");
  s.keys("9");
  const std::string text = s.text();
  EXPECT_TRUE(contains(text, "Ranks side by side")) << text;
  EXPECT_TRUE(contains(text, "rank 0 #2"));
  // The cross-rank views, each a tab further (Tab moves one on).
  for (const char* view : {"ranks", "collectives", "imbalance", "rank-path"}) {
    s.key(key::kTab);
    const std::string& shown = s.session->text(view);
    EXPECT_TRUE(contains(s.text(), shown.substr(0, std::min<size_t>(shown.find('\n'), 60))))
        << view << "\n"
        << s.text();
  }
  EXPECT_TRUE(contains(s.draw().row(1), " 0 Time Coll Imbal RPath")) << s.draw().row(1);
}

// Two runs of one program merged, the second twice as slow: each brick's
// spread between the ranks is 2x and the slow rank is marked.
TEST(Ranks, SideBySideWithTheSlowestMarked) {
  Trace fast = read_trace_file(data("tree_small.json"));
  Trace slow = fast;
  for (Node& n : slow.nodes) {
    n.start_ns *= 2;
    n.end_ns *= 2;
  }
  slow.process.rank = 1;
  fast.process.rank = 0;
  Session session(merge_traces({fast, slow}, {"fast.json", "slow.json"}), "merged.json");
  const Lines lines = ranks_lines(session);
  bool found = false;
  for (const Line& l : lines) {
    if (l.text().rfind("RmsNorm", 0) != 0) continue;
    found = true;
    EXPECT_TRUE(contains(l.text(), "140.0µs")) << l.text();  // 90 + 50, per rank 0
    EXPECT_TRUE(contains(l.text(), "280.0µs")) << l.text();
    EXPECT_TRUE(contains(l.text(), "2.00x")) << l.text();
    ASSERT_EQ(l.spans.size(), 4u);
    EXPECT_EQ(l.spans[1].style, Style::kNormal);
    EXPECT_EQ(l.spans[2].style, Style::kWarning);  // rank 1, the slow one
  }
  EXPECT_TRUE(found);
}

// A brick only one rank ran has no spread and no slowest rank.
TEST(Ranks, ABrickOnOneRankHasNoSpread) {
  Session session(read_trace_file(data("analyses/merged.json")), "merged.json");
  bool found = false;
  for (const Line& l : ranks_lines(session)) {
    if (l.text().rfind("GateProjection", 0) != 0) continue;  // rank 0 only
    found = true;
    EXPECT_EQ(l.spans.back().text.find('x'), std::string::npos) << l.text();
    for (const Span& span : l.spans) EXPECT_NE(span.style, Style::kWarning) << l.text();
  }
  EXPECT_TRUE(found);
}

// `diff --under` refuses a pair whose BASE lacks the scopes (exit 2): the
// view has no verdict then either, rather than one on all of BASE.
TEST(Browser, UnderScopesTheBaseLacksGiveNoVerdict) {
  Screen s("tree_small.json", 120, 40, false, "analyses/diff_base.json");
  s.draw();
  EXPECT_TRUE(contains(s.draw().row(0), "[vs analyses/diff_base.json: FAIL]"));  // another program
  s.keys("u").key(key::kCtrlU).keys("Layer 0\n");
  EXPECT_TRUE(contains(s.draw().row(0), "[vs analyses/diff_base.json: no verdict]"))
      << s.draw().row(0);
  s.keys("9");
  EXPECT_TRUE(contains(s.text(), "analyses/diff_base.json: no scope named 'Layer 0' (--under)"))
      << s.text();
  EXPECT_FALSE(contains(s.text(), "FAIL")) << s.text();
  s.keys("U9");  // the whole traces again: diff's verdict again
  EXPECT_TRUE(contains(s.text(), "FAIL: BASE is a run of handmade")) << s.text();
}

TEST(Browser, DiffAgainstABaseMarksRegressionsAndChangedCode) {
  Screen s("analyses/diff_new.json", 120, 40, false, "analyses/diff_base.json");
  const Canvas c = s.draw();
  EXPECT_TRUE(contains(c.row(0), "[vs analyses/diff_base.json"));
  EXPECT_TRUE(contains(c.row(2), "Δ/call"));
  // The verdict once the tree's column has computed the diff.
  EXPECT_TRUE(contains(s.draw().row(0), "[vs analyses/diff_base.json: FAIL]"));
  const int rms = s.row_with("RmsNorm");
  ASSERT_GT(rms, 0);
  EXPECT_TRUE(contains(c.row(rms), "+10.0%  ▲")) << c.row(rms);
  s.keys("x");  // expand everything
  const int gemv = s.row_with("gemv");
  ASSERT_GT(gemv, 0) << s.text();
  EXPECT_TRUE(contains(s.draw().row(gemv), "+20.0%  ▲")) << s.draw().row(gemv);
  s.keys("9");
  const std::string text = s.text();
  EXPECT_TRUE(contains(text, "REGRESSION kernel gemv")) << text;
  s.keys("llllll");  // the end of the long line
  EXPECT_TRUE(contains(s.text(), "same name, different code")) << s.text();
}

// Runs with output checksums: the Diff pane compares them too, as
// `diff --outputs` does, and names the first divergence.
TEST(Browser, DiffAgainstABaseNamesTheFirstOutputDivergence) {
  Screen s("outputs/changed.json", 120, 60, false, "outputs/base.json");
  s.keys("9");
  const std::string text = s.text();
  EXPECT_TRUE(contains(text, "Outputs (as diff --outputs")) << text;
  EXPECT_TRUE(contains(text, "First divergence: Layer 0 #0 / DownProjection #0 / gemv #1")) << text;
}

TEST(Browser, RooflinePlotsEveryPointWithALetter) {
  Screen s(kGpu);
  s.keys("4");
  const Canvas c = s.draw();
  const Roofline& r = std::any_cast<const Roofline&>(*s.session->model("roofline"));
  const std::string text = c.text();
  EXPECT_TRUE(contains(text, "GPU 0 peak (")) << text;
  EXPECT_TRUE(contains(text, "): 66.91TFLOP/s, 3.35TB/s, ridge 20.0 FLOP/B")) << text;
  for (size_t i = 0; i < r.entries.size(); ++i)
    EXPECT_TRUE(
        contains(text, std::string(1, point_letter(i)) + " " +
                           (r.entries[i].kind == RooflineEntry::Kind::kBrick ? "b " : "k ") +
                           r.entries[i].name))
        << r.entries[i].name;
  EXPECT_TRUE(contains(text, "╱"));   // the memory roof
  EXPECT_TRUE(contains(text, "──"));  // the compute roof (and the axis)
  s.keys("b");
  EXPECT_TRUE(contains(s.text(), "showing bricks (b)"));
}

// The intensity axis' labels are whole: none runs into the right edge.
TEST(Browser, RooflineLabelsAreNotCut) {
  for (int width : {80, 100, 120}) {
    Screen s(kGpu, width, 24);
    s.keys("4");
    const Canvas c = s.draw();
    int y = 0;  // the axis' row: its unit under the GFLOP/s labels
    while (y < c.height() && c.row(y).rfind(" FLOP/B ", 0) != 0) ++y;
    ASSERT_LT(y, c.height()) << c.text();
    EXPECT_EQ(c.row(y).back(), ' ') << width << ": " << c.row(y);
  }
}

TEST(Browser, HelpListsEveryKey) {
  Screen s(kGpu, 120, 60);
  s.keys("?");
  const std::string text = s.text();
  EXPECT_TRUE(contains(text, "brickprof view: keys"));
  for (const Binding& b : key_bindings()) EXPECT_TRUE(contains(text, b.help)) << b.help;
  s.keys("x");
  EXPECT_FALSE(contains(s.text(), "brickprof view: keys"));
}

TEST(Browser, SmallAndTooSmallTerminals) {
  Screen s(kGpu, 80, 24);
  s.keys("d");
  const Canvas c = s.draw();
  EXPECT_TRUE(contains(c.row(2), "Name"));
  EXPECT_TRUE(contains(c.text(), "Detail"));
  Screen tiny(kGpu, 59, 20);
  EXPECT_TRUE(contains(tiny.text(), "needs a terminal of at least 60x15")) << tiny.text();
  EXPECT_TRUE(contains(tiny.text(), "this one is 59x20"));
  tiny.keys("q");
  EXPECT_TRUE(tiny.browser->done());
}

// Every view on every fixture, in both character sets and at the smallest
// size: nothing throws, and the ASCII screen is ASCII.
TEST(Browser, EveryViewOnEveryFixture) {
  const char* fixtures[] = {kGpu,
                            "tree_small.json",
                            "ptx_source.json",
                            "analyses/merged.json",
                            "analyses/cycle.json",
                            "analyses/roofline.json",
                            "analyses/transfers.json",
                            "analyses/windows.json",
                            "analyses/unnamed.json",
                            "analyses/seed_threads.json"};
  for (const char* fixture : fixtures) {
    for (bool ascii : {false, true}) {
      for (auto [w, h] : {std::pair(60, 15), std::pair(200, 50)}) {
        Screen s(fixture, w, h, ascii);
        for (char tab : std::string("1234567890")) {
          s.keys(std::string(1, tab)).keys("djGkKJd");
          const std::string text = s.text();
          if (!ascii) continue;
          for (char ch : text)
            ASSERT_LT(static_cast<unsigned char>(ch), 0x80) << fixture << " " << tab;
        }
      }
    }
  }
}

TEST(Browser, ADependencyCycleIsSaidNotThrown) {
  Screen s("analyses/cycle.json");
  s.keys("3");
  EXPECT_TRUE(contains(s.text(), "No critical path: analyses/cycle.json: dependency cycle"))
      << s.text();
  s.keys("1c");
  EXPECT_TRUE(contains(s.browser->message(), "no critical path: dependency cycle"));
}

TEST(Browser, ReportTabsShowTheReportText) {
  Screen s("tree_small.json", 200, 60);
  s.keys("2");
  std::ostringstream out;
  const View& v = *find_view("summary");
  render_view(v, s.session->trace(), compute_view(v, s.session->trace(), {}), false, out);
  const std::string text = s.text();
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    EXPECT_TRUE(contains(text, line)) << line;
  }
}

}  // namespace
}  // namespace brickprof::view::test
